import { z } from 'zod';

// The shapes the presenters (presenters-*.ts) answer with, as the API reference shows them. Each
// carries an id under which the OpenAPI document lists it in components.schemas. The contract
// tests validate every answer of the end-to-end tests against these (through the document).

const id = z.string();
const instant = z.string().meta({ format: 'date-time' });
const nullableText = z.string().nullable();

export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() });

export const deleted = <T extends z.ZodObject>(resource: T) => resource.extend({ deleted: z.literal(true) });

export const bounds = z.object({ min_x: z.number(), max_x: z.number(), min_y: z.number(), max_y: z.number(), min_z: z.number(), max_z: z.number() });

export const project = z
  .object({
    id,
    number: z.string(),
    name: z.string(),
    description: nullableText,
    status: z.string(),
    start_date: nullableText,
    end_date: nullableText,
    bounds: bounds.nullable(),
    created_by: nullableText,
    created_at: instant,
    updated_at: instant,
    version: z.number().int(),
    time_zone: z.string().meta({ description: "IANA time zone the console and reports show the project's times in (default UTC).", example: 'Asia/Shanghai' }),
  })
  .meta({ id: 'Project' });

/** A project's active alarms (open or acknowledged), ADR 0088; null when the caller lacks data:read. */
export const openAlarms = z
  .object({
    count: z.number().int(),
    unacknowledged: z.number().int(),
    by_level: z.record(z.string(), z.number().int()),
    highest_level: z.string().nullable(),
  })
  .meta({ id: 'OpenAlarms' });

/** A project as GET /projects and GET /projects/{id} show it: with its open alarms. */
export const projectWithAlarms = project.extend({ open_alarms: openAlarms.nullable() }).meta({ id: 'ProjectWithAlarms' });

export const member = z
  .object({
    project_id: id,
    user_id: id,
    role: z.string(),
    name: nullableText,
    phone: nullableText,
    added_by: nullableText,
    created_at: instant,
    updated_at: instant,
  })
  .meta({ id: 'Member' });

export const task = z
  .object({
    id,
    project_id: id,
    name: z.string(),
    description: nullableText,
    status: z.string(),
    priority: z.string(),
    assignee: z.object({ user_id: id, name: z.string(), phone: z.string() }).nullable(),
    due_at: nullableText,
    overdue: z.boolean(),
    completed_at: nullableText,
    created_by: nullableText,
    created_at: instant,
    updated_at: instant,
    version: z.number().int(),
  })
  .meta({ id: 'Task' });

export const alarmRules = z.object({
  clear_after_readings: z.number().nullable(),
  rate_warning_mm_per_day: z.number().nullable(),
  rate_alarm_mm_per_day: z.number().nullable(),
  rate_window_hours: z.number().nullable(),
  expected_interval_seconds: z.number().nullable(),
  stale_factor: z.number().nullable(),
});

export const point = z
  .object({
    id,
    project_id: id,
    number: z.string(),
    name: z.string(),
    sensor_type: z.string(),
    reference: z.object({ x: z.number(), y: z.number(), z: z.number() }).nullable().meta({ description: 'Metres; null for a type without coordinates.' }),
    thresholds: z
      .object({ warning: z.number(), alarm: z.number() })
      .nullable()
      .meta({ description: 'Displacement thresholds, mm, of the geodetic types; null for other types (their limits are trigger_levels).' }),
    trigger_levels: z.array(
      z.object({ level: z.enum(['warning', 'alarm', 'action']), channel: z.string(), above: z.number().nullable(), below: z.number().nullable() }),
    ),
    derived_channels: z
      .array(z.object({ name: z.string(), unit: z.string(), expression: z.string() }))
      .meta({ description: 'Channels computed from the others at every write (docs/instruments.md#derived-channels).' }),
    abrupt_change_limit: z.number().nullable(),
    precision: z.number().nullable(),
    device_id: nullableText,
    active: z.boolean(),
    description: nullableText,
    alarm_rules: alarmRules.nullable(),
    created_at: instant,
    updated_at: instant,
    version: z.number().int(),
  })
  .meta({ id: 'Point' });

const coefficient = (description: string) => z.number().nullable().optional().meta({ description });

/** A dated calibration of a point (ADR 0116); the coefficients present are its method's. */
export const calibration = z
  .object({
    id,
    point_id: id,
    method: z.enum(['linear', 'polynomial', 'vibrating_wire']),
    factor: coefficient('linear: value = factor · raw + offset'),
    offset: coefficient('linear'),
    a: coefficient('polynomial: value = a · raw² + b · raw + c'),
    b: coefficient('polynomial'),
    c: coefficient('polynomial'),
    gauge_factor: coefficient('vibrating_wire: G, measured unit per digit; value = G·(R₁ − R₀) + K·(T₁ − T₀), R = f²/1000'),
    zero_reading: coefficient('vibrating_wire: R₀, digits'),
    temperature_factor: coefficient('vibrating_wire: K, measured unit per °C (null: no temperature correction)'),
    zero_temperature: coefficient('vibrating_wire: T₀, °C'),
    raw_channel: z.string().meta({ description: 'The raw channel converted (frequency, tips).' }),
    channel: z.string().meta({ description: 'The measured channel it gives (pore_pressure, …).' }),
    valid_from: instant,
    created_by: z.string(),
    created_at: instant,
    recompute: z
      .object({
        status: z.enum(['pending', 'running', 'done']),
        records: z.number().int().meta({ description: 'Readings recomputed so far.' }),
        changed: z.number().int().meta({ description: 'Readings whose values or status changed.' }),
        started_at: instant.nullable(),
        finished_at: instant.nullable(),
      })
      .meta({ description: 'The recomputation of the point’s readings from valid_from on.' }),
  })
  .meta({ id: 'Calibration' });

/**
 * A recomputation of a point's stored readings (ADR 0116, 0117): after a calibration was added, or
 * its derived channels changed. Who caused it and its progress.
 */
export const recomputation = z
  .object({
    id: z.string().meta({ description: 'The calibration’s id (cause calibration); `{point_id}@{n}` for a change of derived channels.' }),
    point_id: id,
    cause: z.enum(['calibration', 'derived_channels']),
    calibration_id: id.nullable().meta({ description: 'The calibration added (cause calibration); null otherwise.' }),
    from: instant.meta({ description: 'Readings measured from this instant on are recomputed (the epoch: every reading).' }),
    requested_by: z.string().meta({ description: 'The principal who added the calibration or changed the point.' }),
    requested_at: instant,
    status: z.enum(['pending', 'running', 'done']),
    records: z.number().int().meta({ description: 'Readings recomputed so far.' }),
    changed: z.number().int().meta({ description: 'Readings whose values or status changed.' }),
    started_at: instant.nullable(),
    finished_at: instant.nullable(),
  })
  .meta({ id: 'Recomputation' });

/**
 * A point as GET /projects/{id}/points lists it: with its state now (ADR 0088). The three fields
 * are null when the caller lacks data:read (stale too: not known, rather than false).
 */
export const pointWithState = point
  .extend({ status: z.string().nullable(), last_measured_at: instant.nullable(), stale: z.boolean().nullable() })
  .meta({ id: 'PointWithState' });

export const device = z
  .object({
    id,
    serial_number: z.string(),
    name: nullableText,
    model: z.string(),
    type: z.string(),
    manufacturer: nullableText,
    status: z.string(),
    calibrated_at: nullableText,
    calibration_due_at: nullableText,
    description: nullableText,
    created_at: instant,
    updated_at: instant,
    version: z.number().int(),
  })
  .meta({ id: 'Device' });

const values = z.record(z.string(), z.number());

export const dataRecord = z
  .object({
    data_id: id,
    project_id: id,
    point_id: id,
    measured_at: z.string(),
    values,
    status: z.string(),
    quality_flag: z.string(),
    remark: nullableText,
    created_at: instant,
    updated_at: instant,
    version: z.number().int(),
    units: z
      .record(z.string(), z.string())
      .optional()
      .describe("Latest values of an instrument point: each channel's unit by name (docs/instruments.md). Absent for geodetic points."),
  })
  .meta({ id: 'DataRecord' });

export const dataWritten = z
  .object({
    project_id: id,
    total_count: z.number().int(),
    abnormal_count: z.number().int(),
    records: z.array(z.object({ data_id: id, point_id: id, measured_at: z.string(), status: z.string(), quality_flag: z.string() })),
  })
  .meta({ id: 'DataWritten' });

export const batch = z
  .object({
    batch_id: id,
    project_id: id,
    status: z.string(),
    total_count: z.number().int(),
    processed_count: z.number().int(),
    accepted_count: z.number().int(),
    rejected_count: z.number().int(),
    abnormal_count: z.number().int(),
    failure: z.object({ code: z.number().int(), detail: z.string() }).nullable(),
    created_at: instant,
    started_at: nullableText,
    completed_at: nullableText,
    errors: listOf(z.object({ index: z.number().int(), code: z.number().int(), field: z.string(), detail: z.string() })),
  })
  .meta({ id: 'Batch' });

const statistics = z.object({ min: z.number(), avg: z.number(), max: z.number() });

export const series = z
  .object({
    point_id: id,
    project_id: id,
    from: z.string(),
    to: z.string(),
    interval_seconds: z.number().int(),
    // a series of one channel (instrument points, or `channel` given): its name and unit
    channel: z.string().optional().describe('The channel of the series (docs/instruments.md); absent for a geodetic point asked without `channel`.'),
    unit: z.string().optional().describe("The channel's unit, e.g. kPa."),
    buckets: z.array(
      z.object({
        start: z.string(),
        count: z.number().int(),
        dx: statistics.optional(),
        dy: statistics.optional(),
        dz: statistics.optional(),
        min: z.number().optional(),
        avg: z.number().optional(),
        max: z.number().optional(),
      }),
    ),
  })
  .meta({ id: 'Series' });

// `recipient`: an e-mail address whose notification's acknowledge link acknowledged the alarm (ADR 0090)
const actor = z.object({ principal_id: id, principal_type: z.enum(['user', 'api_key', 'client', 'recipient']) }).nullable();

export const alarm = z
  .object({
    alarm_id: id,
    project_id: id,
    point_id: id,
    rule: z.string(),
    level: z.string().meta({ description: 'warning, alarm or action (the highest level crossed while it was active).' }),
    channel: nullableText.meta({
      description: 'The channel whose limit was crossed (dx, dy or dz for a displacement threshold); null for rate and stale-data alarms.',
    }),
    status: z.string(),
    reason: z.string(),
    threshold: z.object({ warning: z.number().nullable(), alarm: z.number().nullable() }),
    value: z.number().nullable(),
    first_data_id: nullableText,
    last_data_id: nullableText,
    last_measured_at: nullableText,
    reading_count: z.number().int(),
    first_over: z.object({ data_id: nullableText, measured_at: instant, count: z.number().int() }).nullable().meta({
      description:
        'When the limit was first crossed: the first reading over the level of the run that opened the alarm (a back-filled write holds many), when it was measured, and how many readings of that run were over it.',
    }),
    normal_count: z.number().int(),
    opened_at: instant,
    updated_at: instant,
    acknowledged: z.object({ at: instant, by: actor, comment: nullableText }).nullable(),
    cleared: z.object({ at: instant, by: actor, automatic: z.boolean(), comment: nullableText }).nullable(),
    version: z.number().int(),
  })
  .meta({ id: 'Alarm' });

export const alarmWithHistory = alarm
  .extend({
    history: z.array(
      z.object({
        at: instant,
        action: z.string(),
        level: z.string(),
        status: z.string(),
        by: actor,
        comment: nullableText,
        data_id: nullableText,
        reason: nullableText,
      }),
    ),
  })
  .meta({ id: 'AlarmWithHistory' });

export const user = z
  .object({
    id,
    username: z.string(),
    name: z.string(),
    phone: nullableText,
    permissions: z.array(z.string()),
    disabled: z.boolean(),
    locked_until: nullableText,
    last_login_at: nullableText,
    created_at: instant,
    updated_at: instant,
    version: z.number().int(),
  })
  .meta({ id: 'User' });

export const token = z
  .object({ access_token: z.string(), token_type: z.string(), expires_in: z.number().int(), refresh_token: z.string(), scope: z.string() })
  .meta({ id: 'Token' });

export const apiKey = z
  .object({
    id,
    name: z.string(),
    permissions: z.array(z.string()),
    environment: z.string(),
    prefix: z.string(),
    created_at: instant,
    created_by: nullableText,
    expires_at: nullableText,
    revoked_at: nullableText,
    last_used_at: nullableText,
    rolled_at: nullableText,
    previous_value_expires_at: nullableText,
  })
  .meta({ id: 'ApiKey' });

/** A key as created or rolled: its value, shown this once. */
export const apiKeyWithValue = apiKey.extend({ key: z.string() }).meta({ id: 'ApiKeyWithValue' });

export const oauthClient = z
  .object({
    client_id: id,
    name: z.string(),
    client_type: z.string(),
    redirect_uris: z.array(z.string()),
    environment: z.string(),
    created_at: instant,
    created_by: nullableText,
  })
  .meta({ id: 'OAuthClient' });

const plan = z
  .object({
    name: z.string(),
    features: z.array(z.string()),
    limits: z.object({
      api_requests_per_minute: z.number().int().nullable(),
      data_records_per_minute: z.number().int().nullable(),
      report_generations_per_hour: z.number().int().nullable(),
      concurrent_requests: z.number().int().nullable(),
    }),
  })
  .nullable();

export const me = z
  .object({
    principal_type: z.string(),
    id,
    name: z.string(),
    tenant: z.object({ id, name: z.string() }),
    environment: z.string(),
    permissions: z.array(z.string()),
    plan,
    user: user.nullable(),
    client_id: nullableText,
  })
  .meta({ id: 'Me' });

export const webhook = z
  .object({
    id,
    name: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    /** The projects whose events it receives; null for every project of the tenant. */
    project_ids: z.array(id).nullable(),
    retry_policy: z.object({ max_retries: z.number().int(), retry_interval: z.number().int() }),
    active: z.boolean(),
    created_at: instant,
    updated_at: instant,
    success_rate: z.number().nullable(),
    delivery_stats: z.object({ window_hours: z.number(), delivered: z.number().int(), failed: z.number().int(), pending: z.number().int() }).nullable(),
    secret_rotation: z.object({ rotated_at: instant, new_secret_signs_from: instant }).nullable(),
  })
  .meta({ id: 'Webhook' });

/** A webhook as created or after a secret rotation: its signing secret, shown this once. */
export const webhookWithSecret = webhook.extend({ secret: z.string() }).meta({ id: 'WebhookWithSecret' });

/** The fields present depend on the status (docs/rules.md#delivery-record). */
export const delivery = z
  .object({
    delivery_id: id,
    event_id: id,
    event_type: z.string(),
    webhook_id: id,
    status: z.string(),
    http_status: z.number().int().nullable(),
    delivered_at: nullableText.optional(),
    duration_ms: z.number().int().nullable().optional(),
    error: nullableText.optional(),
    retry_count: z.number().int().optional(),
    failed_at: nullableText.optional(),
    next_attempt_at: nullableText.optional(),
    resend_count: z.number().int(),
    created_at: instant,
  })
  .meta({ id: 'Delivery' });

export const deliveryWithAttempts = delivery
  .extend({
    attempts: z.array(
      z.object({
        attempt: z.number().int(),
        cycle: z.number().int(),
        started_at: instant,
        duration_ms: z.number().int(),
        http_status: z.number().int().nullable(),
        outcome: z.string(),
        error: nullableText,
        redirects: z.number().int(),
        retry_at: nullableText,
      }),
    ),
  })
  .meta({ id: 'DeliveryWithAttempts' });

export const errorDetail = z
  .object({
    error_code: z.string(),
    message: z.string(),
    category: z.string(),
    common_causes: z.array(z.string()),
    solutions: z.array(z.string()),
    example: z.object({ request: z.record(z.string(), z.unknown()), correct: z.record(z.string(), z.unknown()) }),
  })
  .meta({ id: 'ErrorDetail' });

/** Every refusal (docs/rules.md#error-envelope). */
export const errorEnvelope = z
  .object({
    code: z.number().int(),
    message: z.string(),
    data: z.object({ field: z.string().nullable(), detail: z.string(), suggestion: z.string() }),
    meta: z.object({ request_id: z.string(), timestamp: instant, documentation_url: z.string() }),
  })
  .meta({ id: 'Error' });

export const successMeta = z.object({ request_id: z.string(), timestamp: instant });

/** A report template (docs/adr/0025): which sections and points a report shows, in which formats. */
export const template = z
  .object({
    id,
    name: z.string(),
    description: nullableText,
    sections: z.array(z.string()),
    point_ids: z.array(id).nullable(),
    formats: z.array(z.string()),
    time_zone: nullableText.meta({ description: "IANA time zone its reports show times in; null: the project's." }),
    created_by: nullableText,
    created_at: instant,
    updated_at: instant,
    version: z.number().int(),
  })
  .meta({ id: 'Template' });

/** A generated (or generating) report; the review fields are null until someone approves or rejects it. */
export const report = z
  .object({
    id,
    project_id: id,
    project_name: z.string(),
    template_id: id,
    title: z.string(),
    from: instant,
    to: instant,
    time_zone: z.string(),
    status: z.string(),
    files: z.array(z.object({ format: z.string(), size_bytes: z.number().int(), sha256: z.string() })),
    record_count: z.number().int(),
    data_as_of: instant.nullable(),
    generated_at: instant.nullable(),
    approved_by: nullableText,
    approved_at: instant.nullable(),
    comment: nullableText,
    rejected_by: nullableText,
    rejected_at: instant.nullable(),
    reason: nullableText,
    failure: z.object({ code: z.number().int(), detail: z.string() }).nullable(),
    schedule_id: nullableText.meta({ description: 'The schedule that asked for the report; null when a person did.' }),
    created_by: nullableText,
    created_at: instant,
  })
  .meta({ id: 'Report' });

export const sensorType = z
  .object({
    id,
    name: z.string(),
    geodetic: z.boolean().meta({ description: 'Measures coordinates: reference coordinates and displacement thresholds apply.' }),
    primary_channel: z.string(),
    channels: z.array(
      z.object({
        name: z.string(),
        unit: z.string(),
        quantity: z.string(),
        kind: z.enum(['measured', 'raw', 'derived']),
        primary: z.boolean(),
        range: z
          .object({ min: z.number(), max: z.number() })
          .nullable()
          .meta({ description: 'Plausible values (422201 outside); null for coordinates, bounded by the project.' }),
        converted_from: z.string().nullable().meta({ description: 'The raw channel the point’s calibration converts into this one.' }),
      }),
    ),
  })
  .meta({ id: 'SensorType' });

/** A schedule of weekly or monthly reports of a project (ADR 0109). */
export const reportSchedule = z
  .object({
    id,
    project_id: id,
    template_id: id,
    frequency: z.enum(['weekly', 'monthly']),
    time_zone: z.string(),
    recipients: z.array(z.object({ email: z.string() })),
    next_run_at: instant.meta({ description: 'When the report of the period ending then is asked for (the end of the current week or month in time_zone).' }),
    last_report_id: nullableText,
    last_run_at: instant.nullable(),
    last_error: nullableText,
    created_by: nullableText,
    created_at: instant,
  })
  .meta({ id: 'ReportSchedule' });

/** The tenant's logo on its reports (ADR 0108). */
export const tenantLogo = z
  .object({
    content_type: z.enum(['image/png', 'image/jpeg']),
    size_bytes: z.number().int(),
    sha256: z.string(),
    width: z.number().int(),
    height: z.number().int(),
    image: z.string().meta({ description: 'The image, base64.' }),
    updated_by: nullableText,
    updated_at: instant,
  })
  .meta({ id: 'TenantLogo' });
/** A project's site plan (ADR 0121) without its image: what a change answers. */
export const sitePlanSummary = z
  .object({
    project_id: z.string(),
    content_type: z.enum(['image/png', 'image/jpeg']),
    size_bytes: z.number().int(),
    sha256: z.string(),
    width: z.number().int(),
    height: z.number().int(),
    positions: z.array(
      z.object({
        point_id: z.string(),
        x: z.number().meta({ description: 'From the left edge, a fraction of the width (0 … 1).' }),
        y: z.number().meta({ description: 'From the top edge, a fraction of the height (0 … 1).' }),
      }),
    ),
    updated_by: nullableText,
    updated_at: instant,
  })
  .meta({ id: 'SitePlanSummary' });
/** The site plan with its drawing, base64. */
export const sitePlan = sitePlanSummary.extend({ image: z.string().meta({ description: 'The drawing, base64.' }) }).meta({ id: 'SitePlan' });
/** A notification rule (ADR 0090): who is mailed about a project's alarms, reminded and escalated to. */
export const notificationRule = z
  .object({
    id,
    project_id: id,
    name: z.string(),
    levels: z.array(z.string()),
    recipients: z.array(z.object({ email: z.string() })),
    reminder_interval_seconds: z.number().int().nullable(),
    escalation: z.object({ after_seconds: z.number().int(), recipients: z.array(z.object({ email: z.string() })) }).nullable(),
    created_at: instant,
    created_by: z.string(),
    mail_configured: z.boolean().meta({ description: 'false while MP_SMTP_URL is not set: the rule is kept and no mail leaves (logged as skipped).' }),
  })
  .meta({ id: 'NotificationRule' });

/** The rules of a project, and whether mail leaves at all. */
export const notificationRuleList = listOf(notificationRule).extend({ mail_configured: z.boolean() }).meta({ id: 'NotificationRuleList' });

/** One mail of a rule's delivery log. */
export const notificationDelivery = z
  .object({
    id,
    rule_id: id,
    alarm_id: id,
    kind: z.string().meta({ enum: ['opened', 'escalated', 'reminder', 'escalation'] }),
    recipient: z.string(),
    subject: z.string(),
    status: z.string().meta({ enum: ['pending', 'sent', 'failed', 'skipped'] }),
    attempts: z.number().int(),
    last_error: nullableText,
    smtp_response: nullableText,
    sent_at: nullableText,
    next_attempt_at: nullableText,
    acknowledged_at: nullableText.meta({ description: "When the alarm was acknowledged through this mail's link." }),
    created_at: instant,
  })
  .meta({ id: 'NotificationDelivery' });

// Generated from docs/openapi.json by codegen/generate-types.mjs (npm run types -w @mp/sdk); do not edit.
// API document version 3.2.0.

export type Alarm = {
  alarm_id: string;
  project_id: string;
  point_id: string;
  rule: string;
  level: string;
  channel: string | null;
  status: string;
  reason: string;
  threshold: {
    warning: number | null;
    alarm: number | null;
  };
  value: number | null;
  first_data_id: string | null;
  last_data_id: string | null;
  last_measured_at: string | null;
  reading_count: number;
  first_over: {
    data_id: string | null;
    measured_at: string;
    count: number;
  } | null;
  normal_count: number;
  opened_at: string;
  updated_at: string;
  acknowledged: {
    at: string;
    by: {
      principal_id: string;
      principal_type: "user" | "api_key" | "client" | "recipient";
    } | null;
    comment: string | null;
  } | null;
  cleared: {
    at: string;
    by: {
      principal_id: string;
      principal_type: "user" | "api_key" | "client" | "recipient";
    } | null;
    automatic: boolean;
    comment: string | null;
  } | null;
  version: number;
};

export type AlarmAcknowledgedEvent = {
  event_id: string;
  event_type: "alarm.acknowledged";
  timestamp: string;
  webhook_id: string;
  data: AlarmEventPayload;
};

export type AlarmClearedEvent = {
  event_id: string;
  event_type: "alarm.cleared";
  timestamp: string;
  webhook_id: string;
  data: AlarmEventPayload;
};

export type AlarmEscalatedEvent = {
  event_id: string;
  event_type: "alarm.escalated";
  timestamp: string;
  webhook_id: string;
  data: AlarmRaisedPayload;
};

export type AlarmEventPayload = {
  alarm_id: string;
  project_id: string;
  point_id: string;
  rule: "threshold" | "rate" | "stale";
  level: "warning" | "alarm" | "action";
  channel?: string | null;
  status: "open" | "acknowledged" | "cleared";
  reason: string;
  by: {
    principal_type: string;
    principal_id: string;
  } | null;
  automatic: boolean;
  comment: string | null;
  at: string;
};

export type AlarmOpenedEvent = {
  event_id: string;
  event_type: "alarm.opened";
  timestamp: string;
  webhook_id: string;
  data: AlarmRaisedPayload;
};

export type AlarmRaisedPayload = {
  alarm_id: string;
  project_id: string;
  point_id: string;
  rule: "threshold" | "rate" | "stale";
  level: "warning" | "alarm" | "action";
  channel: string | null;
  status: "open" | "acknowledged" | "cleared";
  reason: string;
  by: {
    principal_type: string;
    principal_id: string;
  } | null;
  automatic: boolean;
  comment: string | null;
  at: string;
  project_name: string;
  point_name: string;
  value: number | null;
  data_id: string | null;
  measured_at: string | null;
};

export type AlarmWithHistory = {
  alarm_id: string;
  project_id: string;
  point_id: string;
  rule: string;
  level: string;
  channel: string | null;
  status: string;
  reason: string;
  threshold: {
    warning: number | null;
    alarm: number | null;
  };
  value: number | null;
  first_data_id: string | null;
  last_data_id: string | null;
  last_measured_at: string | null;
  reading_count: number;
  first_over: {
    data_id: string | null;
    measured_at: string;
    count: number;
  } | null;
  normal_count: number;
  opened_at: string;
  updated_at: string;
  acknowledged: {
    at: string;
    by: {
      principal_id: string;
      principal_type: "user" | "api_key" | "client" | "recipient";
    } | null;
    comment: string | null;
  } | null;
  cleared: {
    at: string;
    by: {
      principal_id: string;
      principal_type: "user" | "api_key" | "client" | "recipient";
    } | null;
    automatic: boolean;
    comment: string | null;
  } | null;
  version: number;
  history: Array<{
    at: string;
    action: string;
    level: string;
    status: string;
    by: {
      principal_id: string;
      principal_type: "user" | "api_key" | "client" | "recipient";
    } | null;
    comment: string | null;
    data_id: string | null;
    reason: string | null;
  }>;
};

export type ApiKey = {
  id: string;
  name: string;
  permissions: Array<string>;
  environment: string;
  prefix: string;
  created_at: string;
  created_by: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rolled_at: string | null;
  previous_value_expires_at: string | null;
};

export type ApiKeyWithValue = {
  id: string;
  name: string;
  permissions: Array<string>;
  environment: string;
  prefix: string;
  created_at: string;
  created_by: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rolled_at: string | null;
  previous_value_expires_at: string | null;
  key: string;
};

export type Batch = {
  batch_id: string;
  project_id: string;
  status: string;
  total_count: number;
  processed_count: number;
  accepted_count: number;
  rejected_count: number;
  abnormal_count: number;
  failure: {
    code: number;
    detail: string;
  } | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  errors: {
    items: Array<{
      index: number;
      code: number;
      field: string;
      detail: string;
    }>;
    next_cursor: string | null;
    has_more: boolean;
  };
};

export type Calibration = {
  id: string;
  point_id: string;
  method: "linear" | "polynomial" | "vibrating_wire";
  factor?: number | null;
  offset?: number | null;
  a?: number | null;
  b?: number | null;
  c?: number | null;
  gauge_factor?: number | null;
  zero_reading?: number | null;
  temperature_factor?: number | null;
  zero_temperature?: number | null;
  raw_channel: string;
  channel: string;
  valid_from: string;
  created_by: string;
  created_at: string;
  recompute: {
    status: "pending" | "running" | "done";
    records: number;
    changed: number;
    started_at: string | null;
    finished_at: string | null;
  };
};

export type DataAbnormalEvent = {
  event_id: string;
  event_type: "data.abnormal";
  timestamp: string;
  webhook_id: string;
  data: DataAbnormalPayload;
};

export type DataAbnormalPayload = {
  project_id: string;
  project_name: string;
  alert_level: "warning" | "alarm" | "action";
  records: Array<EventAbnormalRecord>;
};

export type DataBatchCompletedEvent = {
  event_id: string;
  event_type: "data.batch_completed";
  timestamp: string;
  webhook_id: string;
  data: DataBatchCompletedPayload;
};

export type DataBatchCompletedPayload = {
  batch_id: string;
  project_id: string;
  project_name?: string;
  status: "completed" | "failed";
  total_count: number;
  accepted_count: number;
  rejected_count: number;
  abnormal_count: number;
  created_at: string;
  completed_at: string;
};

export type DataCreatedEvent = {
  event_id: string;
  event_type: "data.created";
  timestamp: string;
  webhook_id: string;
  data: DataCreatedPayload;
};

export type DataCreatedPayload = {
  project_id: string;
  project_name: string;
  records: Array<EventRecord>;
  total_count: number;
  abnormal_count: number;
};

export type DataImport = {
  import_id: string;
  project_id: string;
  profile_id: string;
  status: string;
  bytes: number;
  rows: number;
  stored: number;
  duplicates: number;
  rejected: number;
  error_count: number;
  errors: Array<{
    row: number;
    column: string | null;
    code: number;
    message: string;
  }>;
  failure: {
    code: number;
    detail: string;
  } | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
};

export type DataRecord = {
  data_id: string;
  project_id: string;
  point_id: string;
  measured_at: string;
  values: {
    [key: string]: number;
  };
  status: string;
  quality_flag: string;
  remark: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  units?: {
    [key: string]: string;
  };
};

export type DataUpdatedEvent = {
  event_id: string;
  event_type: "data.updated";
  timestamp: string;
  webhook_id: string;
  data: DataUpdatedPayload;
};

export type DataUpdatedPayload = {
  project_id: string;
  project_name: string;
  change: "updated" | "deleted";
  changed_fields: Array<string>;
  records: Array<EventRecord>;
  remark?: string | null;
};

export type DataWritten = {
  project_id: string;
  total_count: number;
  abnormal_count: number;
  records: Array<{
    data_id: string;
    point_id: string;
    measured_at: string;
    status: string;
    quality_flag: string;
  }>;
};

export type Delivery = {
  delivery_id: string;
  event_id: string;
  event_type: string;
  webhook_id: string;
  status: string;
  http_status: number | null;
  delivered_at?: string | null;
  duration_ms?: number | null;
  error?: string | null;
  retry_count?: number;
  failed_at?: string | null;
  next_attempt_at?: string | null;
  resend_count: number;
  created_at: string;
};

export type DeliveryWithAttempts = {
  delivery_id: string;
  event_id: string;
  event_type: string;
  webhook_id: string;
  status: string;
  http_status: number | null;
  delivered_at?: string | null;
  duration_ms?: number | null;
  error?: string | null;
  retry_count?: number;
  failed_at?: string | null;
  next_attempt_at?: string | null;
  resend_count: number;
  created_at: string;
  attempts: Array<{
    attempt: number;
    cycle: number;
    started_at: string;
    duration_ms: number;
    http_status: number | null;
    outcome: string;
    error: string | null;
    redirects: number;
    retry_at: string | null;
  }>;
};

export type Device = {
  id: string;
  serial_number: string;
  name: string | null;
  model: string;
  type: string;
  manufacturer: string | null;
  status: string;
  calibrated_at: string | null;
  calibration_due_at: string | null;
  description: string | null;
  created_at: string;
  updated_at: string;
  version: number;
};

export type Error = {
  code: number;
  message: string;
  data: {
    field: string | null;
    detail: string;
    suggestion: string;
  };
  meta: {
    request_id: string;
    timestamp: string;
    documentation_url: string;
  };
};

export type ErrorDetail = {
  error_code: string;
  message: string;
  category: string;
  common_causes: Array<string>;
  solutions: Array<string>;
  example: {
    request: {
      [key: string]: unknown;
    };
    correct: {
      [key: string]: unknown;
    };
  };
};

export type EventAbnormalRecord = {
  data_id: string;
  point_id: string;
  point_name: string;
  sensor_type: string;
  measured_at: string;
  values: {
    dx?: number;
    dy?: number;
    dz?: number;
    [key: string]: number | undefined;
  };
  status: "warning" | "alarm" | "action";
  threshold: {
    warning: number;
    alarm: number;
  };
  reason: string;
  level?: "warning" | "alarm" | "action";
  channel?: string;
};

export type EventPerson = {
  user_id: string;
  name: string;
  phone: string;
};

export type EventRecord = {
  data_id: string;
  point_id: string;
  point_name: string;
  sensor_type: string;
  measured_at: string;
  values: {
    x?: number;
    y?: number;
    z?: number;
    dx?: number;
    dy?: number;
    dz?: number;
    [key: string]: number | undefined;
  };
  status: "normal" | "warning" | "alarm" | "action";
  quality_flag: string;
};

export type ImportProfile = {
  id: string;
  project_id: string;
  name: string;
  format: string;
  timestamp_column: string;
  timestamp_format: string | null;
  time_zone: string;
  delimiter: string | null;
  decimal: string | null;
  columns: Array<{
    column: string;
    point_id: string;
    channel: string;
  }>;
  version: number;
  created_at: string;
  updated_at: string;
};

export type Me = {
  principal_type: string;
  id: string;
  name: string;
  tenant: {
    id: string;
    name: string;
  };
  environment: string;
  permissions: Array<string>;
  plan: {
    name: string;
    features: Array<string>;
    limits: {
      api_requests_per_minute: number | null;
      data_records_per_minute: number | null;
      report_generations_per_hour: number | null;
      concurrent_requests: number | null;
    };
  } | null;
  user: User | null;
  client_id: string | null;
};

export type Member = {
  project_id: string;
  user_id: string;
  role: string;
  name: string | null;
  phone: string | null;
  added_by: string | null;
  created_at: string;
  updated_at: string;
};

export type NotificationDelivery = {
  id: string;
  rule_id: string;
  alarm_id: string;
  kind: "opened" | "escalated" | "reminder" | "escalation";
  recipient: string;
  subject: string;
  status: "pending" | "sent" | "failed" | "skipped";
  attempts: number;
  last_error: string | null;
  smtp_response: string | null;
  sent_at: string | null;
  next_attempt_at: string | null;
  acknowledged_at: string | null;
  created_at: string;
};

export type NotificationRule = {
  id: string;
  project_id: string;
  name: string;
  levels: Array<string>;
  recipients: Array<{
    email: string;
  }>;
  reminder_interval_seconds: number | null;
  escalation: {
    after_seconds: number;
    recipients: Array<{
      email: string;
    }>;
  } | null;
  created_at: string;
  created_by: string;
  mail_configured: boolean;
};

export type NotificationRuleList = {
  items: Array<NotificationRule>;
  next_cursor: string | null;
  has_more: boolean;
  mail_configured: boolean;
};

export type OAuthClient = {
  client_id: string;
  name: string;
  client_type: string;
  redirect_uris: Array<string>;
  environment: string;
  created_at: string;
  created_by: string | null;
};

export type OpenAlarms = {
  count: number;
  unacknowledged: number;
  by_level: {
    [key: string]: number;
  };
  highest_level: string | null;
};

export type Point = {
  id: string;
  project_id: string;
  number: string;
  name: string;
  sensor_type: string;
  reference: {
    x: number;
    y: number;
    z: number;
  } | null;
  thresholds: {
    warning: number;
    alarm: number;
  } | null;
  trigger_levels: Array<{
    level: "warning" | "alarm" | "action";
    channel: string;
    above: number | null;
    below: number | null;
  }>;
  derived_channels: Array<{
    name: string;
    unit: string;
    expression: string;
  }>;
  abrupt_change_limit: number | null;
  precision: number | null;
  device_id: string | null;
  active: boolean;
  description: string | null;
  alarm_rules: {
    clear_after_readings: number | null;
    rate_warning_mm_per_day: number | null;
    rate_alarm_mm_per_day: number | null;
    rate_window_hours: number | null;
    expected_interval_seconds: number | null;
    stale_factor: number | null;
  } | null;
  created_at: string;
  updated_at: string;
  version: number;
};

export type PointWithState = {
  id: string;
  project_id: string;
  number: string;
  name: string;
  sensor_type: string;
  reference: {
    x: number;
    y: number;
    z: number;
  } | null;
  thresholds: {
    warning: number;
    alarm: number;
  } | null;
  trigger_levels: Array<{
    level: "warning" | "alarm" | "action";
    channel: string;
    above: number | null;
    below: number | null;
  }>;
  derived_channels: Array<{
    name: string;
    unit: string;
    expression: string;
  }>;
  abrupt_change_limit: number | null;
  precision: number | null;
  device_id: string | null;
  active: boolean;
  description: string | null;
  alarm_rules: {
    clear_after_readings: number | null;
    rate_warning_mm_per_day: number | null;
    rate_alarm_mm_per_day: number | null;
    rate_window_hours: number | null;
    expected_interval_seconds: number | null;
    stale_factor: number | null;
  } | null;
  created_at: string;
  updated_at: string;
  version: number;
  status: string | null;
  last_measured_at: string | null;
  stale: boolean | null;
};

export type Project = {
  id: string;
  number: string;
  name: string;
  description: string | null;
  status: string;
  start_date: string | null;
  end_date: string | null;
  bounds: {
    min_x: number;
    max_x: number;
    min_y: number;
    max_y: number;
    min_z: number;
    max_z: number;
  } | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  time_zone: string;
};

export type ProjectCompletedEvent = {
  event_id: string;
  event_type: "project.completed";
  timestamp: string;
  webhook_id: string;
  data: ProjectStatusChangedPayload;
};

export type ProjectCreatedEvent = {
  event_id: string;
  event_type: "project.created";
  timestamp: string;
  webhook_id: string;
  data: ProjectCreatedPayload;
};

export type ProjectCreatedPayload = {
  project_id: string;
  project_name: string;
  number: string;
  status: "not_started" | "in_progress" | "paused" | "completed" | "archived";
  start_date: string | null;
  end_date: string | null;
  created_by: string;
  created_at: string;
};

export type ProjectStatusChangedEvent = {
  event_id: string;
  event_type: "project.status_changed";
  timestamp: string;
  webhook_id: string;
  data: ProjectStatusChangedPayload;
};

export type ProjectStatusChangedPayload = {
  project_id: string;
  project_name: string;
  previous_status: "not_started" | "in_progress" | "paused" | "completed" | "archived";
  current_status: "not_started" | "in_progress" | "paused" | "completed" | "archived";
  changed_by: EventPerson;
  changed_at: string;
  remark: string;
};

export type ProjectWithAlarms = {
  id: string;
  number: string;
  name: string;
  description: string | null;
  status: string;
  start_date: string | null;
  end_date: string | null;
  bounds: {
    min_x: number;
    max_x: number;
    min_y: number;
    max_y: number;
    min_z: number;
    max_z: number;
  } | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  time_zone: string;
  open_alarms: OpenAlarms | null;
};

export type Recomputation = {
  id: string;
  point_id: string;
  cause: "calibration" | "derived_channels";
  calibration_id: string | null;
  from: string;
  requested_by: string;
  requested_at: string;
  status: "pending" | "running" | "done";
  records: number;
  changed: number;
  started_at: string | null;
  finished_at: string | null;
};

export type Report = {
  id: string;
  project_id: string;
  project_name: string;
  template_id: string;
  title: string;
  from: string;
  to: string;
  time_zone: string;
  status: string;
  files: Array<{
    format: string;
    size_bytes: number;
    sha256: string;
  }>;
  record_count: number;
  data_as_of: string | null;
  generated_at: string | null;
  approved_by: string | null;
  approved_at: string | null;
  comment: string | null;
  rejected_by: string | null;
  rejected_at: string | null;
  reason: string | null;
  failure: {
    code: number;
    detail: string;
  } | null;
  schedule_id: string | null;
  created_by: string | null;
  created_at: string;
};

export type ReportApprovedEvent = {
  event_id: string;
  event_type: "report.approved";
  timestamp: string;
  webhook_id: string;
  data: ReportEventPayload;
};

export type ReportEventPayload = {
  report_id: string;
  report_title: string;
  project_id: string;
  project_name: string;
  template_id: string;
  period: {
    from: string;
    to: string;
  };
  status: "generating" | "generated" | "failed" | "approved" | "rejected";
  files: Array<{
    format: "pdf" | "csv" | "xlsx";
    size_bytes: number;
    sha256: string;
  }>;
  generated_at: string | null;
  data_as_of: string | null;
  approved_by?: string | null;
  approved_at?: string | null;
  comment?: string | null;
  rejected_by?: string | null;
  rejected_at?: string | null;
  reason?: string | null;
};

export type ReportGeneratedEvent = {
  event_id: string;
  event_type: "report.generated";
  timestamp: string;
  webhook_id: string;
  data: ReportEventPayload;
};

export type ReportRejectedEvent = {
  event_id: string;
  event_type: "report.rejected";
  timestamp: string;
  webhook_id: string;
  data: ReportEventPayload;
};

export type ReportSchedule = {
  id: string;
  project_id: string;
  template_id: string;
  frequency: "weekly" | "monthly";
  time_zone: string;
  recipients: Array<{
    email: string;
  }>;
  next_run_at: string;
  last_report_id: string | null;
  last_run_at: string | null;
  last_error: string | null;
  created_by: string | null;
  created_at: string;
};

export type SensorType = {
  id: string;
  name: string;
  geodetic: boolean;
  primary_channel: string;
  channels: Array<{
    name: string;
    unit: string;
    quantity: string;
    kind: "measured" | "raw" | "derived";
    primary: boolean;
    range: {
      min: number;
      max: number;
    } | null;
    converted_from: string | null;
  }>;
};

export type Series = {
  point_id: string;
  project_id: string;
  from: string;
  to: string;
  interval_seconds: number;
  channel?: string;
  unit?: string;
  buckets: Array<{
    start: string;
    count: number;
    dx?: {
      min: number;
      avg: number;
      max: number;
    };
    dy?: {
      min: number;
      avg: number;
      max: number;
    };
    dz?: {
      min: number;
      avg: number;
      max: number;
    };
    min?: number;
    avg?: number;
    max?: number;
  }>;
};

export type SitePlan = {
  project_id: string;
  content_type: "image/png" | "image/jpeg";
  size_bytes: number;
  sha256: string;
  width: number;
  height: number;
  positions: Array<{
    point_id: string;
    x: number;
    y: number;
  }>;
  updated_by: string | null;
  updated_at: string;
  image: string;
};

export type SitePlanSummary = {
  project_id: string;
  content_type: "image/png" | "image/jpeg";
  size_bytes: number;
  sha256: string;
  width: number;
  height: number;
  positions: Array<{
    point_id: string;
    x: number;
    y: number;
  }>;
  updated_by: string | null;
  updated_at: string;
};

export type SuccessMeta = {
  request_id: string;
  timestamp: string;
};

export type SystemConfig = {
  environment: "live" | "sandbox";
  webhook_source_addresses: Array<string>;
};

export type Task = {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  status: string;
  priority: string;
  assignee: {
    user_id: string;
    name: string;
    phone: string;
  } | null;
  due_at: string | null;
  overdue: boolean;
  completed_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  version: number;
};

export type TaskAssignedEvent = {
  event_id: string;
  event_type: "task.assigned";
  timestamp: string;
  webhook_id: string;
  data: TaskAssignedPayload;
};

export type TaskAssignedPayload = {
  task_id: string;
  task_name: string;
  project_id: string;
  project_name: string;
  status: "pending" | "assigned" | "in_progress" | "completed" | "cancelled";
  assignee: EventPerson;
  previous_assignee: EventPerson | null;
  assigned_by: EventPerson;
  assigned_at: string;
};

export type TaskCompletedEvent = {
  event_id: string;
  event_type: "task.completed";
  timestamp: string;
  webhook_id: string;
  data: TaskCompletedPayload;
};

export type TaskCompletedPayload = {
  task_id: string;
  task_name: string;
  project_id: string;
  project_name: string;
  previous_status: "pending" | "assigned" | "in_progress" | "completed" | "cancelled";
  current_status: "pending" | "assigned" | "in_progress" | "completed" | "cancelled";
  changed_by: EventPerson;
  changed_at: string;
  remark: string;
  completed_at: string;
};

export type TaskCreatedEvent = {
  event_id: string;
  event_type: "task.created";
  timestamp: string;
  webhook_id: string;
  data: TaskCreatedPayload;
};

export type TaskCreatedPayload = {
  task_id: string;
  task_name: string;
  project_id: string;
  project_name: string;
  status: "pending" | "assigned" | "in_progress" | "completed" | "cancelled";
  priority: "low" | "normal" | "high" | "urgent";
  due_at: string | null;
  assignee: EventPerson | null;
  created_by: EventPerson;
  created_at: string;
};

export type TaskOverdueEvent = {
  event_id: string;
  event_type: "task.overdue";
  timestamp: string;
  webhook_id: string;
  data: TaskOverduePayload;
};

export type TaskOverduePayload = {
  task_id: string;
  task_name: string;
  project_id: string;
  project_name: string;
  status: "pending" | "assigned" | "in_progress" | "completed" | "cancelled";
  due_at: string;
  overdue_at: string;
  assignee: EventPerson | null;
};

export type TaskStatusChangedEvent = {
  event_id: string;
  event_type: "task.status_changed";
  timestamp: string;
  webhook_id: string;
  data: TaskStatusChangedPayload;
};

export type TaskStatusChangedPayload = {
  task_id: string;
  task_name: string;
  project_id: string;
  project_name: string;
  previous_status: "pending" | "assigned" | "in_progress" | "completed" | "cancelled";
  current_status: "pending" | "assigned" | "in_progress" | "completed" | "cancelled";
  changed_by: EventPerson;
  changed_at: string;
  remark: string;
};

export type Template = {
  id: string;
  name: string;
  description: string | null;
  sections: Array<string>;
  point_ids: Array<string> | null;
  formats: Array<string>;
  time_zone: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  version: number;
};

export type TenantLogo = {
  content_type: "image/png" | "image/jpeg";
  size_bytes: number;
  sha256: string;
  width: number;
  height: number;
  image: string;
  updated_by: string | null;
  updated_at: string;
};

export type Token = {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
};

export type User = {
  id: string;
  username: string;
  name: string;
  phone: string | null;
  permissions: Array<string>;
  disabled: boolean;
  locked_until: string | null;
  last_login_at: string | null;
  created_at: string;
  updated_at: string;
  version: number;
};

export type Webhook = {
  id: string;
  name: string;
  url: string;
  events: Array<string>;
  project_ids: Array<string> | null;
  retry_policy: {
    max_retries: number;
    retry_interval: number;
  };
  active: boolean;
  created_at: string;
  updated_at: string;
  success_rate: number | null;
  delivery_stats: {
    window_hours: number;
    delivered: number;
    failed: number;
    pending: number;
  } | null;
  secret_rotation: {
    rotated_at: string;
    new_secret_signs_from: string;
  } | null;
};

export type WebhookTestEvent = {
  event_id: string;
  event_type: "webhook.test";
  timestamp: string;
  webhook_id: string;
  data: WebhookTestPayload;
};

export type WebhookTestPayload = {
  message: string;
  webhook_id: string;
  webhook_name: string;
};

export type WebhookWithSecret = {
  id: string;
  name: string;
  url: string;
  events: Array<string>;
  project_ids: Array<string> | null;
  retry_policy: {
    max_retries: number;
    retry_interval: number;
  };
  active: boolean;
  created_at: string;
  updated_at: string;
  success_rate: number | null;
  delivery_stats: {
    window_hours: number;
    delivered: number;
    failed: number;
    pending: number;
  } | null;
  secret_rotation: {
    rotated_at: string;
    new_secret_signs_from: string;
  } | null;
  secret: string;
};

/** Each event type a webhook receives, and its envelope (`data` typed by the event catalogue). */
export interface WebhookEvents {
  "data.created": DataCreatedEvent;
  "data.updated": DataUpdatedEvent;
  "data.abnormal": DataAbnormalEvent;
  "data.batch_completed": DataBatchCompletedEvent;
  "task.created": TaskCreatedEvent;
  "task.assigned": TaskAssignedEvent;
  "task.status_changed": TaskStatusChangedEvent;
  "task.completed": TaskCompletedEvent;
  "task.overdue": TaskOverdueEvent;
  "project.created": ProjectCreatedEvent;
  "project.status_changed": ProjectStatusChangedEvent;
  "project.completed": ProjectCompletedEvent;
  "report.generated": ReportGeneratedEvent;
  "report.approved": ReportApprovedEvent;
  "report.rejected": ReportRejectedEvent;
  "alarm.opened": AlarmOpenedEvent;
  "alarm.escalated": AlarmEscalatedEvent;
  "alarm.acknowledged": AlarmAcknowledgedEvent;
  "alarm.cleared": AlarmClearedEvent;
  "webhook.test": WebhookTestEvent;
}

/** Every six-digit code the API can answer. */
export type ErrorCode = 400001 | 400002 | 400003 | 400004 | 400005 | 401001 | 401002 | 401003 | 401004 | 401005 | 401006 | 401007 | 401008 | 401020 | 403001 | 403002 | 403003 | 403004 | 404001 | 404002 | 404003 | 404004 | 404005 | 404006 | 404007 | 404008 | 404009 | 404010 | 404011 | 404012 | 404013 | 404014 | 404018 | 404019 | 404020 | 404021 | 404030 | 404031 | 404040 | 409001 | 409002 | 409003 | 409004 | 409005 | 409006 | 409007 | 409008 | 409009 | 409010 | 409011 | 409020 | 422101 | 422102 | 422103 | 422104 | 422105 | 422201 | 422202 | 422203 | 422204 | 422205 | 422301 | 422302 | 422303 | 422304 | 429001 | 429002 | 429003 | 429004 | 429005 | 500001 | 503002;

/** Each route: its path and query parameters, request body and the `data` of its answer. */
export interface Routes {
  "GET /alarms": {
    path: Record<string, never>;
    query: {
      limit?: number;
      cursor?: string;
      status?: "open" | "acknowledged" | "cleared";
      level?: "warning" | "alarm" | "action";
      point_id?: string;
      from?: string;
      to?: string;
      project_id?: string;
    };
    body: undefined;
    response: {
      items: Array<Alarm>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /alarms/{alarm_id}": {
    path: {
      alarm_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: AlarmWithHistory;
  };
  "POST /alarms/{alarm_id}/acknowledge": {
    path: {
      alarm_id: string;
    };
    query: Record<string, never>;
    body: {
      comment?: string;
    };
    response: AlarmWithHistory;
  };
  "POST /alarms/{alarm_id}/clear": {
    path: {
      alarm_id: string;
    };
    query: Record<string, never>;
    body: {
      comment?: string;
    };
    response: AlarmWithHistory;
  };
  "GET /api-keys": {
    path: Record<string, never>;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: undefined;
    response: {
      items: Array<ApiKey>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /api-keys": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      permissions: Array<"project:read" | "project:write" | "task:read" | "task:write" | "data:read" | "data:write" | "report:read" | "report:write" | "system:read" | "system:admin">;
      expires_at?: string;
    };
    response: ApiKeyWithValue;
  };
  "DELETE /api-keys/{key_id}": {
    path: {
      key_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: ApiKey;
  };
  "GET /api-keys/{key_id}": {
    path: {
      key_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: ApiKey;
  };
  "POST /api-keys/{key_id}/roll": {
    path: {
      key_id: string;
    };
    query: Record<string, never>;
    body: {
      grace_period_seconds?: number;
    };
    response: ApiKeyWithValue;
  };
  "GET /auth/jwks": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: {
      keys: Array<{
        [key: string]: unknown;
      }>;
      issuer: string;
      audience: string;
    };
  };
  "POST /auth/login": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      username: string;
      password: string;
      grant_type: "password";
    };
    response: Token;
  };
  "POST /auth/logout": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      refresh_token?: string;
    };
    response: {
      session_id: string;
      revoked_at: string;
    };
  };
  "POST /auth/refresh": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      refresh_token: string;
    };
    response: Token;
  };
  "DELETE /data/{data_id}": {
    path: {
      data_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: {
      data_id: string;
      project_id: string;
      point_id: string;
      measured_at: string;
      values: {
        [key: string]: number;
      };
      status: string;
      quality_flag: string;
      remark: string | null;
      created_at: string;
      updated_at: string;
      version: number;
      units?: {
        [key: string]: string;
      };
      deleted: true;
    };
  };
  "GET /data/{data_id}": {
    path: {
      data_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: DataRecord;
  };
  "PATCH /data/{data_id}": {
    path: {
      data_id: string;
    };
    query: Record<string, never>;
    body: {
      values?: {
        x?: number;
        y?: number;
        z?: number;
        dx?: number;
        dy?: number;
        dz?: number;
        [key: string]: number | undefined;
      };
      quality_flag?: "valid" | "suspect" | "invalid";
      remark?: string | null;
      version?: number;
    };
    response: DataRecord;
  };
  "GET /data/batches/{batch_id}": {
    path: {
      batch_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
    };
    body: undefined;
    response: Batch;
  };
  "GET /data/imports/{import_id}": {
    path: {
      import_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: DataImport;
  };
  "GET /devices": {
    path: Record<string, never>;
    query: {
      limit?: number;
      cursor?: string;
      status?: "active" | "inactive" | "maintenance" | "retired";
      type?: "total_station" | "gnss" | "level" | "inclinometer" | "tiltmeter" | "settlement_gauge" | "extensometer" | "crack_meter" | "piezometer" | "strain_gauge" | "water_level_gauge" | "load_cell" | "rain_gauge" | "thermometer" | "data_logger" | "other";
      q?: string;
    };
    body: undefined;
    response: {
      items: Array<Device>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /devices": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      serial_number: string;
      model: string;
      type: "total_station" | "gnss" | "level" | "inclinometer" | "tiltmeter" | "settlement_gauge" | "extensometer" | "crack_meter" | "piezometer" | "strain_gauge" | "water_level_gauge" | "load_cell" | "rain_gauge" | "thermometer" | "data_logger" | "other";
      name?: string;
      manufacturer?: string;
      status?: "active" | "inactive" | "maintenance" | "retired";
      calibrated_at?: string;
      calibration_due_at?: string;
      description?: string;
    };
    response: Device;
  };
  "DELETE /devices/{device_id}": {
    path: {
      device_id: string;
    };
    query: Record<string, never>;
    body: {
      version?: number;
    };
    response: {
      id: string;
      serial_number: string;
      name: string | null;
      model: string;
      type: string;
      manufacturer: string | null;
      status: string;
      calibrated_at: string | null;
      calibration_due_at: string | null;
      description: string | null;
      created_at: string;
      updated_at: string;
      version: number;
      deleted: true;
    };
  };
  "GET /devices/{device_id}": {
    path: {
      device_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: Device;
  };
  "PATCH /devices/{device_id}": {
    path: {
      device_id: string;
    };
    query: Record<string, never>;
    body: {
      serial_number?: string;
      model?: string;
      type?: "total_station" | "gnss" | "level" | "inclinometer" | "tiltmeter" | "settlement_gauge" | "extensometer" | "crack_meter" | "piezometer" | "strain_gauge" | "water_level_gauge" | "load_cell" | "rain_gauge" | "thermometer" | "data_logger" | "other";
      name?: string | null;
      manufacturer?: string | null;
      status?: "active" | "inactive" | "maintenance" | "retired";
      calibrated_at?: string | null;
      calibration_due_at?: string | null;
      description?: string | null;
      version?: number;
    };
    response: Device;
  };
  "GET /errors": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: {
      items: Array<ErrorDetail>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /errors/{error_code}": {
    path: {
      error_code: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: ErrorDetail;
  };
  "GET /healthz": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: {
      status: "ok";
    };
  };
  "DELETE /import-profiles/{profile_id}": {
    path: {
      profile_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: {
      id: string;
      project_id: string;
      name: string;
      format: string;
      timestamp_column: string;
      timestamp_format: string | null;
      time_zone: string;
      delimiter: string | null;
      decimal: string | null;
      columns: Array<{
        column: string;
        point_id: string;
        channel: string;
      }>;
      version: number;
      created_at: string;
      updated_at: string;
      deleted: true;
    };
  };
  "GET /import-profiles/{profile_id}": {
    path: {
      profile_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: ImportProfile;
  };
  "PATCH /import-profiles/{profile_id}": {
    path: {
      profile_id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      format?: "csv" | "toa5";
      timestamp_column?: string;
      timestamp_format?: "iso" | "YYYY-MM-DD HH:mm:ss" | "YYYY-MM-DD HH:mm" | "YYYY/MM/DD HH:mm:ss" | "DD/MM/YYYY HH:mm:ss" | "DD/MM/YYYY HH:mm" | "MM/DD/YYYY HH:mm:ss" | "MM/DD/YYYY HH:mm" | "DD.MM.YYYY HH:mm:ss" | "DD.MM.YYYY HH:mm" | null;
      time_zone?: string;
      delimiter?: string | null;
      decimal?: "." | "," | null;
      columns?: Array<{
        column: string;
        point_id: string;
        channel: string;
      }>;
      version?: number;
    };
    response: ImportProfile;
  };
  "GET /me": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: Me;
  };
  "DELETE /notification-rules/{rule_id}": {
    path: {
      rule_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: {
      id: string;
      project_id: string;
      name: string;
      levels: Array<string>;
      recipients: Array<{
        email: string;
      }>;
      reminder_interval_seconds: number | null;
      escalation: {
        after_seconds: number;
        recipients: Array<{
          email: string;
        }>;
      } | null;
      created_at: string;
      created_by: string;
      mail_configured: boolean;
      deleted: true;
    };
  };
  "GET /notification-rules/{rule_id}": {
    path: {
      rule_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: NotificationRule;
  };
  "GET /notification-rules/{rule_id}/deliveries": {
    path: {
      rule_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      status?: "pending" | "sent" | "failed" | "skipped";
    };
    body: undefined;
    response: {
      items: Array<NotificationDelivery>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /oauth/clients": {
    path: Record<string, never>;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: undefined;
    response: {
      items: Array<OAuthClient>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /oauth/clients": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      redirect_uris: Array<string>;
      client_type?: "confidential" | "public";
    };
    response: {
      client_id: string;
      name: string;
      client_type: string;
      redirect_uris: Array<string>;
      environment: string;
      created_at: string;
      created_by: string | null;
      client_secret: string | null;
    };
  };
  "DELETE /oauth/clients/{client_id}": {
    path: {
      client_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: {
      client_id: string;
      name: string;
      client_type: string;
      redirect_uris: Array<string>;
      environment: string;
      created_at: string;
      created_by: string | null;
      deleted: true;
    };
  };
  "POST /oauth/token": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      grant_type?: string;
      client_id?: string;
      client_secret?: string;
      code?: string;
      redirect_uri?: string;
      code_verifier?: string;
      refresh_token?: string;
    };
    response: {
      access_token: string;
      token_type: string;
      expires_in: number;
      refresh_token: string;
      scope: string;
      meta: {
        request_id: string;
        timestamp: string;
      };
    };
  };
  "GET /openapi.json": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: {
      [key: string]: unknown;
    };
  };
  "DELETE /points/{point_id}": {
    path: {
      point_id: string;
    };
    query: Record<string, never>;
    body: {
      version?: number;
    };
    response: {
      id: string;
      project_id: string;
      number: string;
      name: string;
      sensor_type: string;
      reference: {
        x: number;
        y: number;
        z: number;
      } | null;
      thresholds: {
        warning: number;
        alarm: number;
      } | null;
      trigger_levels: Array<{
        level: "warning" | "alarm" | "action";
        channel: string;
        above: number | null;
        below: number | null;
      }>;
      derived_channels: Array<{
        name: string;
        unit: string;
        expression: string;
      }>;
      abrupt_change_limit: number | null;
      precision: number | null;
      device_id: string | null;
      active: boolean;
      description: string | null;
      alarm_rules: {
        clear_after_readings: number | null;
        rate_warning_mm_per_day: number | null;
        rate_alarm_mm_per_day: number | null;
        rate_window_hours: number | null;
        expected_interval_seconds: number | null;
        stale_factor: number | null;
      } | null;
      created_at: string;
      updated_at: string;
      version: number;
      deleted: true;
    };
  };
  "GET /points/{point_id}": {
    path: {
      point_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: Point;
  };
  "PATCH /points/{point_id}": {
    path: {
      point_id: string;
    };
    query: Record<string, never>;
    body: {
      number?: string;
      name?: string;
      sensor_type?: "total_station" | "gnss" | "level" | "inclinometer" | "tiltmeter" | "settlement_gauge" | "extensometer" | "crack_meter" | "piezometer" | "strain_gauge" | "water_level_gauge" | "load_cell" | "rain_gauge" | "thermometer";
      reference?: {
        x: number;
        y: number;
        z: number;
      };
      thresholds?: {
        warning?: number;
        alarm?: number;
      };
      abrupt_change_limit?: number | null;
      precision?: number | null;
      device_id?: string | null;
      active?: boolean;
      description?: string | null;
      alarm_rules?: {
        clear_after_readings?: number;
        rate_warning_mm_per_day?: number;
        rate_alarm_mm_per_day?: number;
        rate_window_hours?: number;
        expected_interval_seconds?: number;
        stale_factor?: number;
      } | null;
      trigger_levels?: Array<{
        level: "warning" | "alarm" | "action";
        channel: string;
        above?: number;
        below?: number;
      }>;
      derived_channels?: Array<{
        name: string;
        unit: string;
        expression: string;
      }>;
      version?: number;
    };
    response: Point;
  };
  "GET /points/{point_id}/calibrations": {
    path: {
      point_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
    };
    body: undefined;
    response: {
      items: Array<Calibration>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /points/{point_id}/calibrations": {
    path: {
      point_id: string;
    };
    query: Record<string, never>;
    body: {
      method: "linear" | "polynomial" | "vibrating_wire";
      factor?: number;
      offset?: number;
      a?: number;
      b?: number;
      c?: number;
      gauge_factor?: number;
      zero_reading?: number;
      temperature_factor?: number;
      zero_temperature?: number;
      valid_from?: string;
    };
    response: Calibration;
  };
  "GET /points/{point_id}/data": {
    path: {
      point_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      point_id?: string;
      from?: string;
      to?: string;
      status?: "normal" | "warning" | "alarm" | "action";
      quality_flag?: "valid" | "suspect" | "invalid";
      order?: "asc" | "desc";
    };
    body: undefined;
    response: {
      items: Array<DataRecord>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /points/{point_id}/recomputations": {
    path: {
      point_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: {
      items: Array<Recomputation>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /points/{point_id}/series": {
    path: {
      point_id: string;
    };
    query: {
      from?: string;
      to?: string;
      interval_seconds?: number;
      buckets?: number;
      channel?: string;
    };
    body: undefined;
    response: Series;
  };
  "GET /projects": {
    path: Record<string, never>;
    query: {
      limit?: number;
      cursor?: string;
      status?: "not_started" | "in_progress" | "paused" | "completed" | "archived";
      q?: string;
    };
    body: undefined;
    response: {
      items: Array<ProjectWithAlarms>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /projects": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      number: string;
      description?: string;
      start_date?: string;
      end_date?: string;
      bounds?: {
        min_x: number;
        max_x: number;
        min_y: number;
        max_y: number;
        min_z: number;
        max_z: number;
      };
      time_zone?: string;
    };
    response: Project;
  };
  "DELETE /projects/{project_id}": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      version?: number;
    };
    response: {
      id: string;
      number: string;
      name: string;
      description: string | null;
      status: string;
      start_date: string | null;
      end_date: string | null;
      bounds: {
        min_x: number;
        max_x: number;
        min_y: number;
        max_y: number;
        min_z: number;
        max_z: number;
      } | null;
      created_by: string | null;
      created_at: string;
      updated_at: string;
      version: number;
      time_zone: string;
      deleted: true;
    };
  };
  "GET /projects/{project_id}": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: ProjectWithAlarms;
  };
  "PATCH /projects/{project_id}": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      number?: string;
      description?: string | null;
      start_date?: string | null;
      end_date?: string | null;
      bounds?: {
        min_x: number;
        max_x: number;
        min_y: number;
        max_y: number;
        min_z: number;
        max_z: number;
      } | null;
      time_zone?: string;
      version?: number;
    };
    response: Project;
  };
  "GET /projects/{project_id}/alarms": {
    path: {
      project_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      status?: "open" | "acknowledged" | "cleared";
      level?: "warning" | "alarm" | "action";
      point_id?: string;
      from?: string;
      to?: string;
    };
    body: undefined;
    response: {
      items: Array<Alarm>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /projects/{project_id}/data": {
    path: {
      project_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      point_id?: string;
      from?: string;
      to?: string;
      status?: "normal" | "warning" | "alarm" | "action";
      quality_flag?: "valid" | "suspect" | "invalid";
      order?: "asc" | "desc";
    };
    body: undefined;
    response: {
      items: Array<DataRecord>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /projects/{project_id}/data": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      records: Array<{
        point_id: string;
        measured_at: string;
        values: {
          x?: number;
          y?: number;
          z?: number;
          dx?: number;
          dy?: number;
          dz?: number;
          [key: string]: number | undefined;
        };
        precision?: number;
      }>;
    };
    response: DataWritten;
  };
  "POST /projects/{project_id}/data/batches": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      records: Array<{
        point_id: string;
        measured_at: string;
        values: {
          x?: number;
          y?: number;
          z?: number;
          dx?: number;
          dy?: number;
          dz?: number;
          [key: string]: number | undefined;
        };
        precision?: number;
      }>;
    };
    response: Batch;
  };
  "POST /projects/{project_id}/data/imports": {
    path: {
      project_id: string;
    };
    query: {
      profile_id: string;
    };
    body: undefined;
    response: DataImport;
  };
  "GET /projects/{project_id}/data/latest": {
    path: {
      project_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      point_id?: string | Array<string>;
    };
    body: undefined;
    response: {
      items: Array<DataRecord>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /projects/{project_id}/import-profiles": {
    path: {
      project_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
    };
    body: undefined;
    response: {
      items: Array<ImportProfile>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /projects/{project_id}/import-profiles": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
      format: "csv" | "toa5";
      timestamp_column?: string;
      timestamp_format?: "iso" | "YYYY-MM-DD HH:mm:ss" | "YYYY-MM-DD HH:mm" | "YYYY/MM/DD HH:mm:ss" | "DD/MM/YYYY HH:mm:ss" | "DD/MM/YYYY HH:mm" | "MM/DD/YYYY HH:mm:ss" | "MM/DD/YYYY HH:mm" | "DD.MM.YYYY HH:mm:ss" | "DD.MM.YYYY HH:mm" | null;
      time_zone?: string;
      delimiter?: string | null;
      decimal?: "." | "," | null;
      columns: Array<{
        column: string;
        point_id: string;
        channel: string;
      }>;
    };
    response: ImportProfile;
  };
  "GET /projects/{project_id}/members": {
    path: {
      project_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      role?: "owner" | "editor" | "viewer";
    };
    body: undefined;
    response: {
      items: Array<Member>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /projects/{project_id}/members": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      user_id: string;
      role: "owner" | "editor" | "viewer";
      name?: string;
      phone?: string;
    };
    response: Member;
  };
  "DELETE /projects/{project_id}/members/{user_id}": {
    path: {
      project_id: string;
      user_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: {
      project_id: string;
      user_id: string;
      role: string;
      name: string | null;
      phone: string | null;
      added_by: string | null;
      created_at: string;
      updated_at: string;
      deleted: true;
    };
  };
  "GET /projects/{project_id}/notification-rules": {
    path: {
      project_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
    };
    body: undefined;
    response: NotificationRuleList;
  };
  "POST /projects/{project_id}/notification-rules": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
      levels: Array<"warning" | "alarm" | "action">;
      recipients: Array<{
        email: string;
      }>;
      reminder_interval_seconds?: number | null;
      escalation?: {
        after_seconds: number;
        recipients: Array<{
          email: string;
        }>;
      } | null;
    };
    response: NotificationRule;
  };
  "GET /projects/{project_id}/points": {
    path: {
      project_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      sensor_type?: "total_station" | "gnss" | "level" | "inclinometer" | "tiltmeter" | "settlement_gauge" | "extensometer" | "crack_meter" | "piezometer" | "strain_gauge" | "water_level_gauge" | "load_cell" | "rain_gauge" | "thermometer";
      active?: "true" | "false";
      device_id?: string;
      q?: string;
    };
    body: undefined;
    response: {
      items: Array<PointWithState>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /projects/{project_id}/points": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      number: string;
      name: string;
      sensor_type: "total_station" | "gnss" | "level" | "inclinometer" | "tiltmeter" | "settlement_gauge" | "extensometer" | "crack_meter" | "piezometer" | "strain_gauge" | "water_level_gauge" | "load_cell" | "rain_gauge" | "thermometer";
      reference?: {
        x: number;
        y: number;
        z: number;
      };
      thresholds?: {
        warning: number;
        alarm: number;
      };
      trigger_levels?: Array<{
        level: "warning" | "alarm" | "action";
        channel: string;
        above?: number;
        below?: number;
      }>;
      calibration?: {
        method: "linear" | "polynomial" | "vibrating_wire";
        factor?: number;
        offset?: number;
        a?: number;
        b?: number;
        c?: number;
        gauge_factor?: number;
        zero_reading?: number;
        temperature_factor?: number;
        zero_temperature?: number;
        valid_from?: string;
      };
      derived_channels?: Array<{
        name: string;
        unit: string;
        expression: string;
      }>;
      abrupt_change_limit?: number;
      precision?: number;
      device_id?: string;
      active?: boolean;
      description?: string;
      alarm_rules?: {
        clear_after_readings?: number;
        rate_warning_mm_per_day?: number;
        rate_alarm_mm_per_day?: number;
        rate_window_hours?: number;
        expected_interval_seconds?: number;
        stale_factor?: number;
      };
    };
    response: Point;
  };
  "GET /projects/{project_id}/report-schedules": {
    path: {
      project_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
    };
    body: undefined;
    response: {
      items: Array<ReportSchedule>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /projects/{project_id}/report-schedules": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      template_id: string;
      frequency: "weekly" | "monthly";
      recipients?: Array<{
        email: string;
      }>;
      time_zone?: string;
    };
    response: ReportSchedule;
  };
  "POST /projects/{project_id}/reports": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      template_id: string;
      from: string;
      to: string;
      title?: string;
      time_zone?: string;
    };
    response: Report;
  };
  "DELETE /projects/{project_id}/site-plan": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: {
      project_id: string;
      content_type: "image/png" | "image/jpeg";
      size_bytes: number;
      sha256: string;
      width: number;
      height: number;
      positions: Array<{
        point_id: string;
        x: number;
        y: number;
      }>;
      updated_by: string | null;
      updated_at: string;
      deleted: true;
    };
  };
  "GET /projects/{project_id}/site-plan": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: SitePlan;
  };
  "PUT /projects/{project_id}/site-plan": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      image: string;
    };
    response: SitePlanSummary;
  };
  "PUT /projects/{project_id}/site-plan/positions": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      positions: Array<{
        point_id: string;
        x: number;
        y: number;
      }>;
    };
    response: SitePlanSummary;
  };
  "PUT /projects/{project_id}/status": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      status: "not_started" | "in_progress" | "paused" | "completed" | "archived";
      remark?: string;
      version?: number;
    };
    response: Project;
  };
  "GET /projects/{project_id}/tasks": {
    path: {
      project_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      status?: "pending" | "assigned" | "in_progress" | "completed" | "cancelled";
      assignee_id?: string;
      priority?: "low" | "normal" | "high" | "urgent";
      overdue?: "true" | "false";
      q?: string;
    };
    body: undefined;
    response: {
      items: Array<Task>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /projects/{project_id}/tasks": {
    path: {
      project_id: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
      description?: string;
      priority?: "low" | "normal" | "high" | "urgent";
      due_at?: string;
      assignee_id?: string;
    };
    response: Task;
  };
  "GET /readyz": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: {
      status: "ready";
    };
  };
  "DELETE /report-schedules/{schedule_id}": {
    path: {
      schedule_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: {
      id: string;
      project_id: string;
      template_id: string;
      frequency: "weekly" | "monthly";
      time_zone: string;
      recipients: Array<{
        email: string;
      }>;
      next_run_at: string;
      last_report_id: string | null;
      last_run_at: string | null;
      last_error: string | null;
      created_by: string | null;
      created_at: string;
      deleted: true;
    };
  };
  "GET /report-schedules/{schedule_id}": {
    path: {
      schedule_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: ReportSchedule;
  };
  "GET /reports": {
    path: Record<string, never>;
    query: {
      limit?: number;
      cursor?: string;
      project_id?: string;
      status?: "generating" | "generated" | "failed" | "approved" | "rejected";
    };
    body: undefined;
    response: {
      items: Array<Report>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /reports/{report_id}": {
    path: {
      report_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: Report;
  };
  "POST /reports/{report_id}/approve": {
    path: {
      report_id: string;
    };
    query: Record<string, never>;
    body: {
      comment?: string;
    };
    response: Report;
  };
  "POST /reports/{report_id}/reject": {
    path: {
      report_id: string;
    };
    query: Record<string, never>;
    body: {
      reason: string;
    };
    response: Report;
  };
  "GET /sensor-types": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: {
      items: Array<SensorType>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /system/config": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: SystemConfig;
  };
  "DELETE /tasks/{task_id}": {
    path: {
      task_id: string;
    };
    query: Record<string, never>;
    body: {
      version?: number;
    };
    response: {
      id: string;
      project_id: string;
      name: string;
      description: string | null;
      status: string;
      priority: string;
      assignee: {
        user_id: string;
        name: string;
        phone: string;
      } | null;
      due_at: string | null;
      overdue: boolean;
      completed_at: string | null;
      created_by: string | null;
      created_at: string;
      updated_at: string;
      version: number;
      deleted: true;
    };
  };
  "GET /tasks/{task_id}": {
    path: {
      task_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: Task;
  };
  "PATCH /tasks/{task_id}": {
    path: {
      task_id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      description?: string | null;
      priority?: "low" | "normal" | "high" | "urgent";
      due_at?: string | null;
      version?: number;
    };
    response: Task;
  };
  "POST /tasks/{task_id}/assign": {
    path: {
      task_id: string;
    };
    query: Record<string, never>;
    body: {
      user_id: string;
      version?: number;
    };
    response: Task;
  };
  "PUT /tasks/{task_id}/status": {
    path: {
      task_id: string;
    };
    query: Record<string, never>;
    body: {
      status: "pending" | "assigned" | "in_progress" | "completed" | "cancelled";
      remark?: string;
      version?: number;
    };
    response: Task;
  };
  "GET /templates": {
    path: Record<string, never>;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: undefined;
    response: {
      items: Array<Template>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /templates": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      description?: string;
      sections: Array<"summary" | "alarms" | "latest" | "points">;
      point_ids?: Array<string>;
      formats?: Array<"pdf" | "csv" | "xlsx">;
      time_zone?: string;
    };
    response: Template;
  };
  "DELETE /templates/{template_id}": {
    path: {
      template_id: string;
    };
    query: Record<string, never>;
    body: {
      version?: number;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      sections: Array<string>;
      point_ids: Array<string> | null;
      formats: Array<string>;
      time_zone: string | null;
      created_by: string | null;
      created_at: string;
      updated_at: string;
      version: number;
      deleted: true;
    };
  };
  "GET /templates/{template_id}": {
    path: {
      template_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: Template;
  };
  "PATCH /templates/{template_id}": {
    path: {
      template_id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      description?: string | null;
      sections?: Array<"summary" | "alarms" | "latest" | "points">;
      point_ids?: Array<string> | null;
      formats?: Array<"pdf" | "csv" | "xlsx">;
      time_zone?: string | null;
      version?: number;
    };
    response: Template;
  };
  "DELETE /tenant/logo": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: {
      content_type: "image/png" | "image/jpeg";
      size_bytes: number;
      sha256: string;
      width: number;
      height: number;
      image: string;
      updated_by: string | null;
      updated_at: string;
      deleted: true;
    };
  };
  "GET /tenant/logo": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    response: TenantLogo;
  };
  "PUT /tenant/logo": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      image: string;
    };
    response: TenantLogo;
  };
  "GET /users": {
    path: Record<string, never>;
    query: {
      limit?: number;
      cursor?: string;
      q?: string;
      disabled?: "true" | "false";
    };
    body: undefined;
    response: {
      items: Array<User>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /users": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      username: string;
      password: string;
      name: string;
      phone?: string;
      permissions?: Array<"project:read" | "project:write" | "task:read" | "task:write" | "data:read" | "data:write" | "report:read" | "report:write" | "system:read" | "system:admin">;
      disabled?: boolean;
    };
    response: User;
  };
  "DELETE /users/{user_id}": {
    path: {
      user_id: string;
    };
    query: Record<string, never>;
    body: {
      version?: number;
    };
    response: {
      id: string;
      username: string;
      name: string;
      phone: string | null;
      permissions: Array<string>;
      disabled: boolean;
      locked_until: string | null;
      last_login_at: string | null;
      created_at: string;
      updated_at: string;
      version: number;
      deleted: true;
    };
  };
  "GET /users/{user_id}": {
    path: {
      user_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: User;
  };
  "PATCH /users/{user_id}": {
    path: {
      user_id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      phone?: string | null;
      permissions?: Array<"project:read" | "project:write" | "task:read" | "task:write" | "data:read" | "data:write" | "report:read" | "report:write" | "system:read" | "system:admin">;
      disabled?: boolean;
      password?: string;
      unlock?: true;
      version?: number;
    };
    response: User;
  };
  "GET /webhooks": {
    path: Record<string, never>;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: undefined;
    response: {
      items: Array<Webhook>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "POST /webhooks": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      url: string;
      events: Array<"data.created" | "data.updated" | "data.abnormal" | "data.batch_completed" | "task.created" | "task.assigned" | "task.status_changed" | "task.completed" | "task.overdue" | "project.created" | "project.status_changed" | "project.completed" | "report.generated" | "report.approved" | "report.rejected" | "alarm.opened" | "alarm.escalated" | "alarm.acknowledged" | "alarm.cleared">;
      project_ids?: Array<string>;
      retry_policy?: {
        max_retries?: number;
        retry_interval?: number;
      };
      active?: boolean;
    };
    response: WebhookWithSecret;
  };
  "DELETE /webhooks/{webhook_id}": {
    path: {
      webhook_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: {
      id: string;
      name: string;
      url: string;
      events: Array<string>;
      project_ids: Array<string> | null;
      retry_policy: {
        max_retries: number;
        retry_interval: number;
      };
      active: boolean;
      created_at: string;
      updated_at: string;
      success_rate: number | null;
      delivery_stats: {
        window_hours: number;
        delivered: number;
        failed: number;
        pending: number;
      } | null;
      secret_rotation: {
        rotated_at: string;
        new_secret_signs_from: string;
      } | null;
      deleted: true;
    };
  };
  "GET /webhooks/{webhook_id}": {
    path: {
      webhook_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: Webhook;
  };
  "PUT /webhooks/{webhook_id}": {
    path: {
      webhook_id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      url?: string;
      events?: Array<"data.created" | "data.updated" | "data.abnormal" | "data.batch_completed" | "task.created" | "task.assigned" | "task.status_changed" | "task.completed" | "task.overdue" | "project.created" | "project.status_changed" | "project.completed" | "report.generated" | "report.approved" | "report.rejected" | "alarm.opened" | "alarm.escalated" | "alarm.acknowledged" | "alarm.cleared">;
      project_ids?: Array<string> | null;
      retry_policy?: {
        max_retries?: number;
        retry_interval?: number;
      };
      active?: boolean;
    };
    response: Webhook;
  };
  "GET /webhooks/{webhook_id}/deliveries": {
    path: {
      webhook_id: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      status?: string;
      event_type?: string;
      from?: string;
      to?: string;
    };
    body: undefined;
    response: {
      items: Array<Delivery>;
      next_cursor: string | null;
      has_more: boolean;
    };
  };
  "GET /webhooks/{webhook_id}/deliveries/{delivery_id}": {
    path: {
      webhook_id: string;
      delivery_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: DeliveryWithAttempts;
  };
  "POST /webhooks/{webhook_id}/deliveries/{delivery_id}/resend": {
    path: {
      webhook_id: string;
      delivery_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: Delivery;
  };
  "POST /webhooks/{webhook_id}/rotate-secret": {
    path: {
      webhook_id: string;
    };
    query: Record<string, never>;
    body: {
      grace_period_seconds?: number;
    };
    response: WebhookWithSecret;
  };
  "POST /webhooks/{webhook_id}/test": {
    path: {
      webhook_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    response: Delivery;
  };
}

/** How the runtime treats each route: Idempotency-Key on creating writes, envelope or bare answer, credentials. */
export const ROUTES: { readonly [K in keyof Routes]: { idempotent: boolean; envelope: boolean; auth: boolean } } = {
  "GET /alarms": { idempotent: false, envelope: true, auth: true },
  "GET /alarms/{alarm_id}": { idempotent: false, envelope: true, auth: true },
  "POST /alarms/{alarm_id}/acknowledge": { idempotent: false, envelope: true, auth: true },
  "POST /alarms/{alarm_id}/clear": { idempotent: false, envelope: true, auth: true },
  "GET /api-keys": { idempotent: false, envelope: true, auth: true },
  "POST /api-keys": { idempotent: true, envelope: true, auth: true },
  "DELETE /api-keys/{key_id}": { idempotent: false, envelope: true, auth: true },
  "GET /api-keys/{key_id}": { idempotent: false, envelope: true, auth: true },
  "POST /api-keys/{key_id}/roll": { idempotent: false, envelope: true, auth: true },
  "GET /auth/jwks": { idempotent: false, envelope: true, auth: false },
  "POST /auth/login": { idempotent: false, envelope: true, auth: false },
  "POST /auth/logout": { idempotent: false, envelope: true, auth: false },
  "POST /auth/refresh": { idempotent: false, envelope: true, auth: false },
  "DELETE /data/{data_id}": { idempotent: false, envelope: true, auth: true },
  "GET /data/{data_id}": { idempotent: false, envelope: true, auth: true },
  "PATCH /data/{data_id}": { idempotent: false, envelope: true, auth: true },
  "GET /data/batches/{batch_id}": { idempotent: false, envelope: true, auth: true },
  "GET /data/imports/{import_id}": { idempotent: false, envelope: true, auth: true },
  "GET /devices": { idempotent: false, envelope: true, auth: true },
  "POST /devices": { idempotent: true, envelope: true, auth: true },
  "DELETE /devices/{device_id}": { idempotent: false, envelope: true, auth: true },
  "GET /devices/{device_id}": { idempotent: false, envelope: true, auth: true },
  "PATCH /devices/{device_id}": { idempotent: false, envelope: true, auth: true },
  "GET /errors": { idempotent: false, envelope: true, auth: true },
  "GET /errors/{error_code}": { idempotent: false, envelope: true, auth: true },
  "GET /healthz": { idempotent: false, envelope: true, auth: false },
  "DELETE /import-profiles/{profile_id}": { idempotent: false, envelope: true, auth: true },
  "GET /import-profiles/{profile_id}": { idempotent: false, envelope: true, auth: true },
  "PATCH /import-profiles/{profile_id}": { idempotent: false, envelope: true, auth: true },
  "GET /me": { idempotent: false, envelope: true, auth: true },
  "DELETE /notification-rules/{rule_id}": { idempotent: false, envelope: true, auth: true },
  "GET /notification-rules/{rule_id}": { idempotent: false, envelope: true, auth: true },
  "GET /notification-rules/{rule_id}/deliveries": { idempotent: false, envelope: true, auth: true },
  "GET /oauth/clients": { idempotent: false, envelope: true, auth: true },
  "POST /oauth/clients": { idempotent: true, envelope: true, auth: true },
  "DELETE /oauth/clients/{client_id}": { idempotent: false, envelope: true, auth: true },
  "POST /oauth/token": { idempotent: false, envelope: false, auth: false },
  "GET /openapi.json": { idempotent: false, envelope: false, auth: false },
  "DELETE /points/{point_id}": { idempotent: false, envelope: true, auth: true },
  "GET /points/{point_id}": { idempotent: false, envelope: true, auth: true },
  "PATCH /points/{point_id}": { idempotent: false, envelope: true, auth: true },
  "GET /points/{point_id}/calibrations": { idempotent: false, envelope: true, auth: true },
  "POST /points/{point_id}/calibrations": { idempotent: true, envelope: true, auth: true },
  "GET /points/{point_id}/data": { idempotent: false, envelope: true, auth: true },
  "GET /points/{point_id}/recomputations": { idempotent: false, envelope: true, auth: true },
  "GET /points/{point_id}/series": { idempotent: false, envelope: true, auth: true },
  "GET /projects": { idempotent: false, envelope: true, auth: true },
  "POST /projects": { idempotent: true, envelope: true, auth: true },
  "DELETE /projects/{project_id}": { idempotent: false, envelope: true, auth: true },
  "GET /projects/{project_id}": { idempotent: false, envelope: true, auth: true },
  "PATCH /projects/{project_id}": { idempotent: false, envelope: true, auth: true },
  "GET /projects/{project_id}/alarms": { idempotent: false, envelope: true, auth: true },
  "GET /projects/{project_id}/data": { idempotent: false, envelope: true, auth: true },
  "POST /projects/{project_id}/data": { idempotent: true, envelope: true, auth: true },
  "POST /projects/{project_id}/data/batches": { idempotent: true, envelope: true, auth: true },
  "POST /projects/{project_id}/data/imports": { idempotent: false, envelope: true, auth: true },
  "GET /projects/{project_id}/data/latest": { idempotent: false, envelope: true, auth: true },
  "GET /projects/{project_id}/import-profiles": { idempotent: false, envelope: true, auth: true },
  "POST /projects/{project_id}/import-profiles": { idempotent: false, envelope: true, auth: true },
  "GET /projects/{project_id}/members": { idempotent: false, envelope: true, auth: true },
  "POST /projects/{project_id}/members": { idempotent: true, envelope: true, auth: true },
  "DELETE /projects/{project_id}/members/{user_id}": { idempotent: false, envelope: true, auth: true },
  "GET /projects/{project_id}/notification-rules": { idempotent: false, envelope: true, auth: true },
  "POST /projects/{project_id}/notification-rules": { idempotent: true, envelope: true, auth: true },
  "GET /projects/{project_id}/points": { idempotent: false, envelope: true, auth: true },
  "POST /projects/{project_id}/points": { idempotent: true, envelope: true, auth: true },
  "GET /projects/{project_id}/report-schedules": { idempotent: false, envelope: true, auth: true },
  "POST /projects/{project_id}/report-schedules": { idempotent: true, envelope: true, auth: true },
  "POST /projects/{project_id}/reports": { idempotent: true, envelope: true, auth: true },
  "DELETE /projects/{project_id}/site-plan": { idempotent: false, envelope: true, auth: true },
  "GET /projects/{project_id}/site-plan": { idempotent: false, envelope: true, auth: true },
  "PUT /projects/{project_id}/site-plan": { idempotent: false, envelope: true, auth: true },
  "PUT /projects/{project_id}/site-plan/positions": { idempotent: false, envelope: true, auth: true },
  "PUT /projects/{project_id}/status": { idempotent: false, envelope: true, auth: true },
  "GET /projects/{project_id}/tasks": { idempotent: false, envelope: true, auth: true },
  "POST /projects/{project_id}/tasks": { idempotent: true, envelope: true, auth: true },
  "GET /readyz": { idempotent: false, envelope: true, auth: false },
  "DELETE /report-schedules/{schedule_id}": { idempotent: false, envelope: true, auth: true },
  "GET /report-schedules/{schedule_id}": { idempotent: false, envelope: true, auth: true },
  "GET /reports": { idempotent: false, envelope: true, auth: true },
  "GET /reports/{report_id}": { idempotent: false, envelope: true, auth: true },
  "POST /reports/{report_id}/approve": { idempotent: false, envelope: true, auth: true },
  "POST /reports/{report_id}/reject": { idempotent: false, envelope: true, auth: true },
  "GET /sensor-types": { idempotent: false, envelope: true, auth: true },
  "GET /system/config": { idempotent: false, envelope: true, auth: true },
  "DELETE /tasks/{task_id}": { idempotent: false, envelope: true, auth: true },
  "GET /tasks/{task_id}": { idempotent: false, envelope: true, auth: true },
  "PATCH /tasks/{task_id}": { idempotent: false, envelope: true, auth: true },
  "POST /tasks/{task_id}/assign": { idempotent: false, envelope: true, auth: true },
  "PUT /tasks/{task_id}/status": { idempotent: false, envelope: true, auth: true },
  "GET /templates": { idempotent: false, envelope: true, auth: true },
  "POST /templates": { idempotent: true, envelope: true, auth: true },
  "DELETE /templates/{template_id}": { idempotent: false, envelope: true, auth: true },
  "GET /templates/{template_id}": { idempotent: false, envelope: true, auth: true },
  "PATCH /templates/{template_id}": { idempotent: false, envelope: true, auth: true },
  "DELETE /tenant/logo": { idempotent: false, envelope: true, auth: true },
  "GET /tenant/logo": { idempotent: false, envelope: true, auth: true },
  "PUT /tenant/logo": { idempotent: false, envelope: true, auth: true },
  "GET /users": { idempotent: false, envelope: true, auth: true },
  "POST /users": { idempotent: true, envelope: true, auth: true },
  "DELETE /users/{user_id}": { idempotent: false, envelope: true, auth: true },
  "GET /users/{user_id}": { idempotent: false, envelope: true, auth: true },
  "PATCH /users/{user_id}": { idempotent: false, envelope: true, auth: true },
  "GET /webhooks": { idempotent: false, envelope: true, auth: true },
  "POST /webhooks": { idempotent: true, envelope: true, auth: true },
  "DELETE /webhooks/{webhook_id}": { idempotent: false, envelope: true, auth: true },
  "GET /webhooks/{webhook_id}": { idempotent: false, envelope: true, auth: true },
  "PUT /webhooks/{webhook_id}": { idempotent: false, envelope: true, auth: true },
  "GET /webhooks/{webhook_id}/deliveries": { idempotent: false, envelope: true, auth: true },
  "GET /webhooks/{webhook_id}/deliveries/{delivery_id}": { idempotent: false, envelope: true, auth: true },
  "POST /webhooks/{webhook_id}/deliveries/{delivery_id}/resend": { idempotent: false, envelope: true, auth: true },
  "POST /webhooks/{webhook_id}/rotate-secret": { idempotent: false, envelope: true, auth: true },
  "POST /webhooks/{webhook_id}/test": { idempotent: false, envelope: true, auth: true },
};

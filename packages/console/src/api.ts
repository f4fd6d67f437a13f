/**
 * Every call the console makes, one function per operation of the public API, through the
 * TypeScript SDK's browser entry (`@mp/sdk/browser`: fetch, typed route names, Idempotency-Key on
 * creating writes, the retry guidance of docs/rules.md#client-retries) against `/v3` of the origin that served the console,
 * so the live console talks to live and the sandbox console to the sandbox. Nothing else in the
 * console calls the API.
 *
 * Sign-in follows docs/rules.md#console-session: the access token lives in this module's memory only; the
 * refresh token is an HttpOnly cookie the gateway's /console/session endpoints set and read, so
 * no script (ours or an injected one) can read it. Those endpoints belong to the console, not to
 * the API, so they stay outside the SDK; the SDK reaches them through its session hook.
 */
import { ApiError as SdkError, MonitoringPlatform, TransportError, type RouteName } from '@mp/sdk/browser';

export type Json = Record<string, any>;
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** A refusal of the API: the error envelope (docs/rules.md#error-envelope), kept whole so that pages can show it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly field: string | null,
    readonly detail: string,
    readonly suggestion: string,
    readonly requestId: string | null,
  ) {
    super(message);
  }
}

const CONSOLE_HEADER = { 'X-MP-Console': '1' };
let accessToken: string | null = null;
let renewing: Promise<boolean> | null = null;

/** The answer of a console session endpoint or of the report file's refusal: the envelope's data, or an ApiError. */
async function readEnvelope(res: Response): Promise<any> {
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    throw unexpected(res.status, text.slice(0, 200));
  }
  if (!res.ok || body?.code !== 200) {
    throw new ApiError(
      res.status,
      Number(body?.code ?? 0),
      body?.message ?? `HTTP ${res.status}`,
      body?.data?.field ?? null,
      body?.data?.detail ?? '',
      body?.data?.suggestion ?? '',
      body?.meta?.request_id ?? null,
    );
  }
  return body.data;
}

const unexpected = (status: number, detail: string) =>
  new ApiError(status, 0, `Unexpected answer (HTTP ${status})`, null, detail, 'Try again; quote the time to support.', null);

async function sessionCall(path: string, body?: Json): Promise<Json> {
  const res = await fetch(`/console/session${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { ...CONSOLE_HEADER, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return readEnvelope(res);
}

export const session = {
  async signIn(username: string, password: string): Promise<void> {
    accessToken = (await sessionCall('', { username, password })).access_token;
  },
  /** A new access token from the refresh cookie (a reload, or an expired token); false when there is no session. */
  resume(): Promise<boolean> {
    renewing ??= sessionCall('/refresh')
      .then((d) => {
        accessToken = d.access_token;
        return true;
      })
      .catch(() => {
        accessToken = null;
        return false;
      })
      .finally(() => {
        renewing = null;
      });
    return renewing;
  },
  async signOut(): Promise<void> {
    accessToken = null;
    await sessionCall('/logout').catch(() => undefined);
  },
  get signedIn(): boolean {
    return accessToken !== null;
  },
};

/** Called when the session cannot be renewed: the app shows the sign-in page. */
let onSignedOut: () => void = () => undefined;
export const whenSignedOut = (f: () => void) => {
  onSignedOut = f;
};

/** docs/rules.md#token-refresh: on an expired access token (401002) the SDK asks for a new one and repeats the call once. */
async function renew(): Promise<boolean> {
  if (await session.resume()) return true;
  onSignedOut();
  return false;
}

const client = new MonitoringPlatform({
  baseUrl: `${location.origin}/v3`,
  session: { accessToken: () => accessToken, refresh: renew },
  // A person is waiting: short retries (5xx after 1 s and 2 s, a 429 whose Retry-After is at most
  // 2 s) are made, a longer wait is shown as the error (its suggestion says when to try again).
  maxWaitMs: 2000,
});

type Query = Record<string, string | number | boolean | undefined | null>;
interface Args {
  path?: Record<string, string>;
  query?: Query;
  body?: Json;
}

/** The session was ended elsewhere (signed out, revoked) or the user disabled: back to sign-in. */
function endIfEndedElsewhere(code: number | undefined): void {
  if (code === 401003 || code === 401006) {
    accessToken = null;
    onSignedOut();
  }
}

/** The SDK's refusal as the console's pages show it; a session ended elsewhere goes back to sign-in. */
function asConsoleError(err: unknown): unknown {
  if (err instanceof SdkError) {
    endIfEndedElsewhere(err.code);
    return new ApiError(err.status, err.code, err.envelope.message, err.field, err.detail, err.suggestion, err.requestId);
  }
  if (err instanceof TransportError && err.status !== null) return unexpected(err.status, err.message);
  return err;
}

/** One route of the public API, by the SDK's route name (checked against the OpenAPI document). */
async function call(route: RouteName, args: Args = {}): Promise<any> {
  // Empty form fields mean "no filter": they are not sent at all.
  const query = Object.fromEntries(Object.entries(args.query ?? {}).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  const request = client.request as (route: RouteName, args: Args) => Promise<unknown>;
  try {
    return await request.call(client, route, { ...args, query });
  } catch (err) {
    throw asConsoleError(err);
  }
}

/**
 * The report file is bytes, not an envelope, and the OpenAPI document (so the SDK) has no route
 * for it: it is fetched directly, with the same bearer token and the same renewal on 401002.
 */
async function fetchFile(url: string, upload?: { body: Blob; contentType: string }): Promise<Response> {
  const send = () =>
    fetch(url, {
      credentials: 'omit',
      ...(upload ? { method: 'POST', body: upload.body } : {}),
      headers: { ...(accessToken ? { Authorization: `Bearer ${accessToken}` } : {}), ...(upload ? { 'Content-Type': upload.contentType } : {}) },
    });
  const res = await send();
  if (res.status !== 401) return res;
  const code = (
    await res
      .clone()
      .json()
      .catch(() => null)
  )?.code;
  if (code === 401002 && (await renew())) return send();
  endIfEndedElsewhere(code);
  return res;
}

export const api = {
  me: () => call('GET /me'),
  getSystemConfig: () => call('GET /system/config'),

  // API keys (system:admin)
  listApiKeys: (q: Query = {}): Promise<Page<Json>> => call('GET /api-keys', { query: { limit: 100, ...q } }),
  createApiKey: (body: { name: string; permissions: string[]; expires_at?: string }) => call('POST /api-keys', { body }),
  rollApiKey: (keyId: string, gracePeriodSeconds: number) =>
    call('POST /api-keys/{key_id}/roll', { path: { key_id: keyId }, body: { grace_period_seconds: gracePeriodSeconds } }),
  revokeApiKey: (keyId: string) => call('DELETE /api-keys/{key_id}', { path: { key_id: keyId } }),

  // Projects, members, tasks, points, devices
  listProjects: (q: Query = {}): Promise<Page<Json>> => call('GET /projects', { query: { limit: 100, ...q } }),
  createProject: (body: Json) => call('POST /projects', { body }),
  getProject: (projectId: string) => call('GET /projects/{project_id}', { path: { project_id: projectId } }),
  changeProjectStatus: (projectId: string, status: string, remark?: string) =>
    call('PUT /projects/{project_id}/status', { path: { project_id: projectId }, body: { status, ...(remark ? { remark } : {}) } }),
  listMembers: (projectId: string): Promise<Page<Json>> =>
    call('GET /projects/{project_id}/members', { path: { project_id: projectId }, query: { limit: 100 } }),
  addMember: (projectId: string, userId: string, role: string) =>
    call('POST /projects/{project_id}/members', { path: { project_id: projectId }, body: { user_id: userId, role } }),
  removeMember: (projectId: string, userId: string) =>
    call('DELETE /projects/{project_id}/members/{user_id}', { path: { project_id: projectId, user_id: userId } }),
  listTasks: (projectId: string, q: Query = {}): Promise<Page<Json>> =>
    call('GET /projects/{project_id}/tasks', { path: { project_id: projectId }, query: { limit: 100, ...q } }),
  createTask: (projectId: string, body: Json) => call('POST /projects/{project_id}/tasks', { path: { project_id: projectId }, body }),
  changeTaskStatus: (taskId: string, status: string) => call('PUT /tasks/{task_id}/status', { path: { task_id: taskId }, body: { status } }),
  listPoints: (projectId: string): Promise<Page<Json>> => call('GET /projects/{project_id}/points', { path: { project_id: projectId }, query: { limit: 100 } }),
  createPoint: (projectId: string, body: Json) => call('POST /projects/{project_id}/points', { path: { project_id: projectId }, body }),
  getPoint: (pointId: string) => call('GET /points/{point_id}', { path: { point_id: pointId } }),
  /** Only the changed fields, with the `version` the form was filled from (409004 when someone saved first). */
  updatePoint: (pointId: string, body: Json) => call('PATCH /points/{point_id}', { path: { point_id: pointId }, body }),
  /** The project's site plan with its drawing (base64); 404040 when it has none. */
  getSitePlan: (projectId: string) => call('GET /projects/{project_id}/site-plan', { path: { project_id: projectId } }),
  putSitePlan: (projectId: string, image: string) => call('PUT /projects/{project_id}/site-plan', { path: { project_id: projectId }, body: { image } }),
  deleteSitePlan: (projectId: string) => call('DELETE /projects/{project_id}/site-plan', { path: { project_id: projectId } }),
  /** Replaces every placement of the plan at once. */
  placeOnSitePlan: (projectId: string, positions: { point_id: string; x: number; y: number }[]) =>
    call('PUT /projects/{project_id}/site-plan/positions', { path: { project_id: projectId }, body: { positions } }),
  /** A point's dated calibrations, newest valid_from first, each with its recomputation's progress. */
  listCalibrations: (pointId: string): Promise<Page<Json>> =>
    call('GET /points/{point_id}/calibrations', { path: { point_id: pointId }, query: { limit: 100 } }),
  addCalibration: (pointId: string, body: Json) => call('POST /points/{point_id}/calibrations', { path: { point_id: pointId }, body }),
  listDevices: (): Promise<Page<Json>> => call('GET /devices', { query: { limit: 100 } }),
  createDevice: (body: Json) => call('POST /devices', { body }),

  // Monitoring data and alarms
  getSeries: (pointId: string, q: { from?: string; to?: string; buckets?: number; channel?: string }) =>
    call('GET /points/{point_id}/series', { path: { point_id: pointId }, query: q }),
  listPointData: (pointId: string, q: Query = {}): Promise<Page<Json>> =>
    call('GET /points/{point_id}/data', { path: { point_id: pointId }, query: { limit: 10, order: 'desc', ...q } }),
  /** A reading's correction (quality flag, remark), with the `version` it was read at. */
  correctData: (dataId: string, body: { quality_flag?: string; remark?: string | null; version: number }) =>
    call('PATCH /data/{data_id}', { path: { data_id: dataId }, body }),
  /** Readings written synchronously: a manual reading is one record. */
  writeData: (projectId: string, records: { point_id: string; measured_at: string; values: Record<string, number> }[]) =>
    call('POST /projects/{project_id}/data', { path: { project_id: projectId }, body: { records } }),
  /** The tenant's alarm inbox: alarms of every project the user reads. */
  listInbox: (q: Query = {}): Promise<Page<Json>> => call('GET /alarms', { query: { limit: 100, ...q } }),
  listAlarms: (projectId: string, q: Query = {}): Promise<Page<Json>> =>
    call('GET /projects/{project_id}/alarms', { path: { project_id: projectId }, query: { limit: 100, ...q } }),
  acknowledgeAlarm: (alarmId: string, comment?: string) =>
    call('POST /alarms/{alarm_id}/acknowledge', { path: { alarm_id: alarmId }, body: comment ? { comment } : {} }),
  clearAlarm: (alarmId: string, comment?: string) => call('POST /alarms/{alarm_id}/clear', { path: { alarm_id: alarmId }, body: comment ? { comment } : {} }),

  // Webhooks
  listNotificationRules: (projectId: string): Promise<Page<Json> & { mail_configured: boolean }> =>
    call('GET /projects/{project_id}/notification-rules', { path: { project_id: projectId }, query: { limit: 100 } }),
  createNotificationRule: (projectId: string, body: Json) => call('POST /projects/{project_id}/notification-rules', { path: { project_id: projectId }, body }),
  deleteNotificationRule: (ruleId: string) => call('DELETE /notification-rules/{rule_id}', { path: { rule_id: ruleId } }),
  listWebhooks: (): Promise<Page<Json>> => call('GET /webhooks', { query: { limit: 100 } }),
  getWebhook: (webhookId: string) => call('GET /webhooks/{webhook_id}', { path: { webhook_id: webhookId } }),
  createWebhook: (body: Json) => call('POST /webhooks', { body }),
  updateWebhook: (webhookId: string, body: Json) => call('PUT /webhooks/{webhook_id}', { path: { webhook_id: webhookId }, body }),
  deleteWebhook: (webhookId: string) => call('DELETE /webhooks/{webhook_id}', { path: { webhook_id: webhookId } }),
  testWebhook: (webhookId: string) => call('POST /webhooks/{webhook_id}/test', { path: { webhook_id: webhookId } }),
  listDeliveries: (webhookId: string, q: Query = {}): Promise<Page<Json>> =>
    call('GET /webhooks/{webhook_id}/deliveries', { path: { webhook_id: webhookId }, query: { limit: 50, ...q } }),
  getDelivery: (webhookId: string, deliveryId: string) =>
    call('GET /webhooks/{webhook_id}/deliveries/{delivery_id}', { path: { webhook_id: webhookId, delivery_id: deliveryId } }),
  resendDelivery: (webhookId: string, deliveryId: string) =>
    call('POST /webhooks/{webhook_id}/deliveries/{delivery_id}/resend', { path: { webhook_id: webhookId, delivery_id: deliveryId } }),
  rotateWebhookSecret: (webhookId: string, gracePeriodSeconds: number) =>
    call('POST /webhooks/{webhook_id}/rotate-secret', { path: { webhook_id: webhookId }, body: { grace_period_seconds: gracePeriodSeconds } }),

  // Users (system:admin)
  listUsers: (q: Query = {}): Promise<Page<Json>> => call('GET /users', { query: { limit: 100, ...q } }),
  createUser: (body: Json) => call('POST /users', { body }),
  updateUser: (userId: string, body: Json) => call('PATCH /users/{user_id}', { path: { user_id: userId }, body }),

  // Reports (shapes of docs/adr/0025)
  listTemplates: (): Promise<Page<Json>> => call('GET /templates', { query: { limit: 100 } }),
  createTemplate: (body: Json) => call('POST /templates', { body }),
  listReports: (q: Query = {}): Promise<Page<Json>> => call('GET /reports', { query: { limit: 100, ...q } }),
  generateReport: (projectId: string, body: { template_id: string; from: string; to: string; title?: string }) =>
    call('POST /projects/{project_id}/reports', { path: { project_id: projectId }, body }),
  approveReport: (reportId: string, comment?: string) =>
    call('POST /reports/{report_id}/approve', { path: { report_id: reportId }, body: comment ? { comment } : {} }),
  rejectReport: (reportId: string, reason: string) => call('POST /reports/{report_id}/reject', { path: { report_id: reportId }, body: { reason } }),
  /**
   * The document itself, not an envelope (refusals still are), with the file name the gateway's
   * Content-Disposition gives it (`rpt_….pdf`). It needs the Authorization header, so a plain
   * link cannot fetch it: the page saves the bytes through a Blob URL.
   */
  async downloadReport(reportId: string, format: string): Promise<{ blob: Blob; fileName: string }> {
    const res = await fetchFile(`/v3/reports/${encodeURIComponent(reportId)}/file?${new URLSearchParams({ format })}`);
    if (!res.ok) await readEnvelope(res);
    const named = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '');
    return { blob: await res.blob(), fileName: named?.[1] ?? `${reportId}.${format}` };
  },

  // Logger file imports (docs/imports.md): profiles, and files sent as the body itself (not JSON)
  listImportProfiles: (projectId: string): Promise<Page<Json>> =>
    call('GET /projects/{project_id}/import-profiles', { path: { project_id: projectId }, query: { limit: 100 } }),
  createImportProfile: (projectId: string, body: Json) => call('POST /projects/{project_id}/import-profiles', { path: { project_id: projectId }, body }),
  deleteImportProfile: (profileId: string) => call('DELETE /import-profiles/{profile_id}', { path: { profile_id: profileId } }),
  getImport: (importId: string) => call('GET /data/imports/{import_id}', { path: { import_id: importId } }),
  async uploadImport(projectId: string, profileId: string, file: Blob): Promise<Json> {
    const url = `/v3/projects/${encodeURIComponent(projectId)}/data/imports?${new URLSearchParams({ profile_id: profileId })}`;
    return readEnvelope(await fetchFile(url, { body: file, contentType: 'text/csv' }));
  },
};

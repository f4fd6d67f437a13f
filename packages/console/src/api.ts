/**
 * Every call the console makes, one function per operation of the public API (`/v3` of the origin
 * that served the console, so the live console talks to live and the sandbox console to the
 * sandbox). Nothing else in the console calls fetch for API data: this module is what moves to
 * the TypeScript SDK (packages/sdk) when it lands — each function maps to one SDK method.
 *
 * Sign-in follows spec §5 rule 7: the access token lives in this module's memory only; the
 * refresh token is an HttpOnly cookie the gateway's /console/session endpoints set and read, so
 * no script (ours or an injected one) can read it.
 */

export type Json = Record<string, any>;
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/** A refusal of the API: the spec §7.1 envelope, kept whole so that pages can show it. */
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

async function readEnvelope(res: Response): Promise<any> {
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    throw new ApiError(res.status, 0, `Unexpected answer (HTTP ${res.status})`, null, text.slice(0, 200), 'Try again; quote the time to support.', null);
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

type Query = Record<string, string | number | boolean | undefined | null>;

async function request(method: string, path: string, opts: { body?: Json; query?: Query } = {}): Promise<Response> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const url = `/v3${path}${qs.size ? `?${qs}` : ''}`;
  const send = () =>
    fetch(url, {
      method,
      credentials: 'omit',
      headers: {
        ...(accessToken ? { Authorization: `Bearer ${accessToken}` } : {}),
        ...(opts.body ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(opts.body ? { body: JSON.stringify(opts.body) } : {}),
    });
  let res = await send();
  // Spec §5 rule 3: an expired access token (401002) is renewed and the request repeated once.
  if (res.status === 401) {
    const peek = await res
      .clone()
      .json()
      .catch(() => null);
    if (peek?.code === 401002) {
      if (await session.resume()) res = await send();
      else onSignedOut();
    } else if (peek?.code === 401003 || peek?.code === 401006) {
      // The session was ended elsewhere (signed out, revoked) or the user disabled: back to sign-in.
      accessToken = null;
      onSignedOut();
    }
  }
  return res;
}

const call = async (method: string, path: string, opts: { body?: Json; query?: Query } = {}) => readEnvelope(await request(method, path, opts));
const id = encodeURIComponent;

export const api = {
  me: () => call('GET', '/me'),
  getSystemConfig: () => call('GET', '/system/config'),

  // API keys (system:admin)
  listApiKeys: (q: Query = {}): Promise<Page<Json>> => call('GET', '/api-keys', { query: { limit: 100, ...q } }),
  createApiKey: (body: { name: string; permissions: string[]; expires_at?: string }) => call('POST', '/api-keys', { body }),
  rollApiKey: (keyId: string, gracePeriodSeconds: number) =>
    call('POST', `/api-keys/${id(keyId)}/roll`, { body: { grace_period_seconds: gracePeriodSeconds } }),
  revokeApiKey: (keyId: string) => call('DELETE', `/api-keys/${id(keyId)}`),

  // Projects, members, tasks, points, devices
  listProjects: (q: Query = {}): Promise<Page<Json>> => call('GET', '/projects', { query: { limit: 100, ...q } }),
  createProject: (body: Json) => call('POST', '/projects', { body }),
  getProject: (projectId: string) => call('GET', `/projects/${id(projectId)}`),
  changeProjectStatus: (projectId: string, status: string, remark?: string) =>
    call('PUT', `/projects/${id(projectId)}/status`, { body: { status, ...(remark ? { remark } : {}) } }),
  listMembers: (projectId: string): Promise<Page<Json>> => call('GET', `/projects/${id(projectId)}/members`, { query: { limit: 100 } }),
  addMember: (projectId: string, userId: string, role: string) => call('POST', `/projects/${id(projectId)}/members`, { body: { user_id: userId, role } }),
  removeMember: (projectId: string, userId: string) => call('DELETE', `/projects/${id(projectId)}/members/${id(userId)}`),
  listTasks: (projectId: string, q: Query = {}): Promise<Page<Json>> => call('GET', `/projects/${id(projectId)}/tasks`, { query: { limit: 100, ...q } }),
  createTask: (projectId: string, body: Json) => call('POST', `/projects/${id(projectId)}/tasks`, { body }),
  changeTaskStatus: (taskId: string, status: string) => call('PUT', `/tasks/${id(taskId)}/status`, { body: { status } }),
  listPoints: (projectId: string): Promise<Page<Json>> => call('GET', `/projects/${id(projectId)}/points`, { query: { limit: 100 } }),
  createPoint: (projectId: string, body: Json) => call('POST', `/projects/${id(projectId)}/points`, { body }),
  getPoint: (pointId: string) => call('GET', `/points/${id(pointId)}`),
  listDevices: (): Promise<Page<Json>> => call('GET', '/devices', { query: { limit: 100 } }),
  createDevice: (body: Json) => call('POST', '/devices', { body }),

  // Monitoring data and alarms
  getSeries: (pointId: string, q: { from?: string; to?: string; buckets?: number }) => call('GET', `/points/${id(pointId)}/series`, { query: q }),
  listPointData: (pointId: string, q: Query = {}): Promise<Page<Json>> =>
    call('GET', `/points/${id(pointId)}/data`, { query: { limit: 10, order: 'desc', ...q } }),
  listAlarms: (projectId: string, q: Query = {}): Promise<Page<Json>> => call('GET', `/projects/${id(projectId)}/alarms`, { query: { limit: 100, ...q } }),
  acknowledgeAlarm: (alarmId: string, comment?: string) => call('POST', `/alarms/${id(alarmId)}/acknowledge`, { body: comment ? { comment } : {} }),
  clearAlarm: (alarmId: string, comment?: string) => call('POST', `/alarms/${id(alarmId)}/clear`, { body: comment ? { comment } : {} }),

  // Webhooks
  listWebhooks: (): Promise<Page<Json>> => call('GET', '/webhooks', { query: { limit: 100 } }),
  getWebhook: (webhookId: string) => call('GET', `/webhooks/${id(webhookId)}`),
  createWebhook: (body: Json) => call('POST', '/webhooks', { body }),
  updateWebhook: (webhookId: string, body: Json) => call('PUT', `/webhooks/${id(webhookId)}`, { body }),
  deleteWebhook: (webhookId: string) => call('DELETE', `/webhooks/${id(webhookId)}`),
  testWebhook: (webhookId: string) => call('POST', `/webhooks/${id(webhookId)}/test`),
  listDeliveries: (webhookId: string, q: Query = {}): Promise<Page<Json>> =>
    call('GET', `/webhooks/${id(webhookId)}/deliveries`, { query: { limit: 50, ...q } }),
  getDelivery: (webhookId: string, deliveryId: string) => call('GET', `/webhooks/${id(webhookId)}/deliveries/${id(deliveryId)}`),
  resendDelivery: (webhookId: string, deliveryId: string) => call('POST', `/webhooks/${id(webhookId)}/deliveries/${id(deliveryId)}/resend`),
  rotateWebhookSecret: (webhookId: string, gracePeriodSeconds: number) =>
    call('POST', `/webhooks/${id(webhookId)}/rotate-secret`, { body: { grace_period_seconds: gracePeriodSeconds } }),

  // Users (system:admin)
  listUsers: (q: Query = {}): Promise<Page<Json>> => call('GET', '/users', { query: { limit: 100, ...q } }),
  createUser: (body: Json) => call('POST', '/users', { body }),
  updateUser: (userId: string, body: Json) => call('PATCH', `/users/${id(userId)}`, { body }),

  // Reports (issue 15's shapes)
  listTemplates: (): Promise<Page<Json>> => call('GET', '/templates', { query: { limit: 100 } }),
  createTemplate: (body: Json) => call('POST', '/templates', { body }),
  listReports: (q: Query = {}): Promise<Page<Json>> => call('GET', '/reports', { query: { limit: 100, ...q } }),
  generateReport: (projectId: string, body: { template_id: string; from: string; to: string; title?: string }) =>
    call('POST', `/projects/${id(projectId)}/reports`, { body }),
  approveReport: (reportId: string, comment?: string) => call('POST', `/reports/${id(reportId)}/approve`, { body: comment ? { comment } : {} }),
  rejectReport: (reportId: string, reason: string) => call('POST', `/reports/${id(reportId)}/reject`, { body: { reason } }),
  /**
   * The document itself, not an envelope (refusals still are), with the file name the gateway's
   * Content-Disposition gives it (`rpt_….pdf`). It needs the Authorization header, so a plain
   * link cannot fetch it: the page saves the bytes through a Blob URL.
   */
  async downloadReport(reportId: string, format: string): Promise<{ blob: Blob; fileName: string }> {
    const res = await request('GET', `/reports/${id(reportId)}/file`, { query: { format } });
    if (!res.ok) await readEnvelope(res);
    const named = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '');
    return { blob: await res.blob(), fileName: named?.[1] ?? `${reportId}.${format}` };
  },
};

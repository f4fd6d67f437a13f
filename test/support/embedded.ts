import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform, type RunningPlatform } from '@mp/launcher';
import { createLogger } from '@mp/kit';
import { httpsRequest, testCertificate, type ApiResponse } from '@mp/testing';

export interface EmbeddedPlatform {
  platform: RunningPlatform;
  /** `https://127.0.0.1:<port>/v3` of the live API. */
  base: string;
  /** An API key of the first administrator's tenant with the permissions asked for. */
  key: string;
  /** A JSON request with that key. */
  api(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** Stops the platform and removes its data folder. */
  stop(): Promise<void>;
}

/**
 * The embedded default as `npm start` runs it (PGlite, in-process events, no Redis), in a data
 * folder of its own, on free ports, with an API key made through the API by the first
 * administrator: what an embedded test needs before its own steps.
 */
export async function startEmbeddedWithKey(name: string, permissions: string[], env: Record<string, string> = {}): Promise<EmbeddedPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), `mp-${name}-embedded-`));
  const admin = { username: 'admin', password: 'correct horse battery staple' };
  const platform = await startPlatform({
    tls: await testCertificate(),
    logger: createLogger('test', process.env.MP_LOG_LEVEL ?? 'warn'),
    env: {
      MP_DATA_DIR: dataDir,
      MP_HTTPS_PORT: '0',
      MP_SANDBOX_HTTPS_PORT: '0',
      MP_OPS_PORT: '0',
      MP_BIND_HOST: '127.0.0.1',
      MP_IDENTITY_GRPC_PORT: '0',
      MP_PROJECTS_GRPC_PORT: '0',
      MP_WEBHOOKS_GRPC_PORT: '0',
      MP_MONITORING_DATA_GRPC_PORT: '0',
      MP_ADMIN_USERNAME: admin.username,
      MP_ADMIN_PASSWORD: admin.password,
      ...env,
    },
  });
  const base = `https://127.0.0.1:${platform.gateway.port}/v3`;
  const login = await httpsRequest(`${base}/auth/login`, { method: 'POST', body: { ...admin, grant_type: 'password' } });
  const created = await httpsRequest(`${base}/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${login.body.data.access_token}` },
    body: { name, permissions },
  });
  const key = created.body.data.key as string;
  return {
    platform,
    base,
    key,
    api: (method, path, body) => httpsRequest(`${base}${path}`, { method, headers: { 'x-api-key': key }, ...(body !== undefined ? { body } : {}) }),
    async stop() {
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

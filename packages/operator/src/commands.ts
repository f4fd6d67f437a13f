import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { identity } from '@mp/contracts';
import { createClient, generatePlatformKeys, PARTIES, type CallerContext } from '@mp/grpc';
import { newId } from '@mp/kit';
import { loadOperatorCredential } from './credential.js';
import { renewGrpcTls } from './renew-grpc-tls.js';
import { RESET_PASSWORD_USAGE, resetPasswordCommand } from './reset-password.js';

export const USAGE = `mp-operator: operator calls of the Monitoring Platform (run as: npm run operator -- <command> [options])

Commands:
  create-tenant --name NAME --admin-username USER [--admin-password PASS] [--admin-name NAME] [--plan PLAN]
  get-tenant --id TENANT_ID
  set-tenant-plan --tenant TENANT_ID --plan PLAN
  upsert-plan --name PLAN [--features sandbox,oauth,reports,data_batches] [--api-per-minute N]
              [--data-records-per-minute N] [--reports-per-hour N] [--concurrent-requests N]
              [--raw-retention-months N]   raw readings archived after N whole months (absent: kept forever)
  rotate-signing-key
${RESET_PASSWORD_USAGE}
  keygen --out DIR [--mtls]      service keys for a deployment (and an internal CA with --mtls)
  renew-grpc-tls --keys DIR      a new CA and certificates in DIR/tls-next, with a CA bundle for the
                                 roll (docs/operations.md, "The gRPC certificates between the services")

Credential: --credential FILE (default MP_DATA_DIR/operator.json, written by npm start), or
MP_SERVICE_KEY_FILE (the operator key) + MP_SERVICE_PEER_KEYS_DIR (with identity.pub) [+ MP_GRPC_TLS_*]
and MP_IDENTITY_ADDR for a deployment.`;

const OPTIONS = {
  credential: { type: 'string' },
  name: { type: 'string' },
  id: { type: 'string' },
  tenant: { type: 'string' },
  plan: { type: 'string' },
  'admin-username': { type: 'string' },
  'admin-password': { type: 'string' },
  'admin-name': { type: 'string' },
  username: { type: 'string' },
  password: { type: 'string' },
  features: { type: 'string' },
  'api-per-minute': { type: 'string' },
  'data-records-per-minute': { type: 'string' },
  'reports-per-hour': { type: 'string' },
  'concurrent-requests': { type: 'string' },
  'raw-retention-months': { type: 'string' },
  out: { type: 'string' },
  keys: { type: 'string' },
  mtls: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

export class UsageError extends Error {}

const operatorContext = (): CallerContext => ({
  requestId: newId('request'),
  tenantId: '',
  environment: 'live',
  principalId: 'operator',
  principalType: 'system',
  permissions: [],
});

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required.`);
  return v;
}

function count(values: Record<string, unknown>, name: string): number {
  const v = values[name];
  if (v === undefined) return 0;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number (0 = the operator default).`);
  return n;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A call's answer as JSON with the API's snake_case field names. */
function print(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [snake(k), x])) : v),
    2,
  );
}

/** Runs one command; resolves with what to print (JSON for calls). */
export async function runOperatorCommand(argv: string[], env: Record<string, string | undefined>): Promise<string> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const command = positionals[0];
  if (!command || values.help) return USAGE;

  if (command === 'keygen') {
    const out = required(values, 'out');
    const keys = await generatePlatformKeys({ mtls: Boolean(values.mtls) });
    keys.writeFiles(out);
    return [
      `Wrote service keys for ${PARTIES.join(', ')} to ${out}:`,
      `  <party>.key        the party's private key: mount it into that party's pods only (MP_SERVICE_KEY_FILE)`,
      `  peers/<party>.pub  public keys: mount the folder into every pod (MP_SERVICE_PEER_KEYS_DIR)`,
      ...(values.mtls ? [`  tls/ca.crt, tls/<party>.crt, tls/<party>.key   mutual TLS (MP_GRPC_TLS_CA_FILE, _CERT_FILE, _KEY_FILE)`] : []),
      `Keep operator.key with the operators, outside the cluster.`,
    ].join('\n');
  }

  if (command === 'renew-grpc-tls') return renewGrpcTls(required(values, 'keys'));

  const credential = loadOperatorCredential(env, values.credential);
  const client = createClient<identity.IdentityServer>(identity.IdentityClient, identity.IdentityService, credential.identityAddress, {
    auth: credential.auth,
    audience: 'identity',
    deadlineMs: 15_000,
  });
  try {
    const ctx = operatorContext();
    switch (command) {
      case 'create-tenant': {
        const generated = values['admin-password'] ? null : randomBytes(18).toString('base64url');
        const created = await client.createTenant(
          {
            name: required(values, 'name'),
            adminUsername: required(values, 'admin-username'),
            adminPassword: values['admin-password'] ?? generated!,
            ...(values['admin-name'] ? { adminName: values['admin-name'] } : {}),
            ...(values.plan ? { plan: values.plan } : {}),
          },
          ctx,
        );
        return print({ ...created, ...(generated ? { admin_password: generated } : {}) });
      }
      case 'get-tenant':
        return print(await client.getTenant({ id: required(values, 'id') }, ctx));
      case 'set-tenant-plan':
        return print(await client.setTenantPlan({ tenantId: required(values, 'tenant'), plan: required(values, 'plan') }, ctx));
      case 'upsert-plan': {
        const plan = {
          name: required(values, 'name'),
          features: (values.features ?? '')
            .split(',')
            .map((f) => f.trim())
            .filter(Boolean),
          limits: {
            apiPerMinute: count(values, 'api-per-minute'),
            dataRecordsPerMinute: count(values, 'data-records-per-minute'),
            reportsPerHour: count(values, 'reports-per-hour'),
            concurrentRequests: count(values, 'concurrent-requests'),
          },
          ...(values['raw-retention-months'] !== undefined ? { rawRetentionMonths: count(values, 'raw-retention-months') } : {}),
        };
        return print(await client.upsertPlan(plan, ctx));
      }
      case 'rotate-signing-key':
        return print(await client.rotateSigningKey({}, ctx));
      case 'reset-password':
        return print(await resetPasswordCommand(client, { username: required(values, 'username'), tenant: values.tenant, password: values.password }, ctx));
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } catch (err) {
    // A credential file that npm start wrote names the identity port of that run: when nothing
    // answers there, the platform stopped or runs on another data folder.
    if (String((err as { code?: unknown }).code) === '503002' && credential.fromDataDir)
      throw new Error(
        `503002 identity at ${credential.identityAddress} did not answer. The operator credential ${credential.source} is written by the platform running on that data folder (MP_DATA_DIR): start the platform (npm start) with MP_DATA_DIR=${dirname(credential.source)}, or set MP_DATA_DIR to the folder of the platform that runs.`,
      );
    throw err;
  } finally {
    client.close();
  }
}

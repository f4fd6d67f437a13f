import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateK8s } from './support/k8s-schemas.js';
import { helmRenderBinary, objects, render, REPO, type K8sObject } from './support/helm.js';
import { allowed, podOf } from './support/network-policy.js';

// ADR 0094: the chart had no migration step (each pod migrated as it started, so a failing
// migration surfaced as pods that never became ready, halfway through a roll) and no upgrade notes.
// Now a Job applies every service's migrations as a pre-install and pre-upgrade hook.
const SERVICES = ['identity', 'projects', 'monitoring-data', 'reports', 'webhooks'];
const NS = 'platform';

let work: string;
beforeAll(() => {
  helmRenderBinary();
  work = mkdtempSync(join(tmpdir(), 'mp-chart-migrations-'));
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const migrateJob = (objs: K8sObject[]) => objs.find((o) => o.kind === 'Job' && o.metadata.name === 'mp-monitoring-platform-migrate');

describe('the migration Job', () => {
  it('runs every service’s migrations before an install or upgrade changes anything, as a hook', () => {
    const r = render();
    const job = migrateJob(objects(r))!;
    expect(validateK8s(job)).toEqual([]);
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.automountServiceAccountToken).toBe(false);
    // One container per service, each the service's own migration entry, which the build makes.
    expect(pod.containers.map((c: { name: string }) => c.name)).toEqual(SERVICES);
    for (const c of pod.containers) {
      expect(c.command).toEqual(['node', `services/${c.name}/dist/migrate.js`]);
      expect(existsSync(join(REPO, 'services', c.name, 'src', 'migrate.ts'))).toBe(true);
      // only the database URL, by reference to the operator's Secret
      expect(c.env).toEqual([{ name: 'MP_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'mp-infra', key: 'database-url' } } }]);
      expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(c.resources.limits.memory).toBe('256Mi');
    }
    expect(job.spec.backoffLimit).toBe(2);
  });

  it('reaches DNS and PostgreSQL only, through a policy that exists before the Job', () => {
    const r = render();
    const policies = objects(r, 'NetworkPolicy').map((p) => ({ ...p, metadata: { ...p.metadata, namespace: NS } }));
    const own = policies.find((p) => p.metadata.name === 'mp-monitoring-platform-migrate')!;
    expect(Number(own.metadata.annotations!['helm.sh/hook-weight'])).toBeLessThan(Number(migrateJob(objects(r))!.metadata.annotations!['helm.sh/hook-weight']));
    expect(own.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const pod = podOf(migrateJob(objects(r))!, NS);
    const db = { ip: '10.30.0.5' };
    const dns = {
      pod: { namespace: 'kube-system', namespaceLabels: { 'kubernetes.io/metadata.name': 'kube-system' }, labels: { 'k8s-app': 'kube-dns' }, ports: {} },
    };
    expect(allowed(policies, { pod }, db, 5432)).toBe(true);
    expect(allowed(policies, { pod }, dns, 53, 'UDP')).toBe(true);
    // not NATS, Redis, the services, or the internet
    expect([allowed(policies, { pod }, db, 4222), allowed(policies, { pod }, db, 6379), allowed(policies, { pod }, { ip: '93.184.216.34' }, 443)]).toEqual([
      false,
      false,
      false,
    ]);
    const identity = podOf(
      objects(r, 'Deployment').find((d) => d.metadata.name === 'mp-monitoring-platform-identity')!,
      NS,
    );
    expect(allowed(policies, { pod }, { pod: identity }, 50051)).toBe(false);
  });

  it('can be turned off, leaving the migrations to the services as they start', () => {
    const file = join(work, 'off.yaml');
    writeFileSync(file, 'migrations:\n  enabled: false\n');
    const objs = objects(render({ files: [file] }));
    expect(migrateJob(objs)).toBeUndefined();
    expect(objs.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name.endsWith('-migrate'))).toBeUndefined();
  });
});

describe('the reports pods', () => {
  it('run with the bounded V8 heap the README recommends for them', () => {
    const reports = objects(render(), 'Deployment').find((d) => d.metadata.name === 'mp-monitoring-platform-reports')!;
    const env = reports.spec.template.spec.containers[0].env as { name: string; value?: string }[];
    expect(env.find((e) => e.name === 'NODE_OPTIONS')?.value).toBe('--max-semi-space-size=4 --max-old-space-size=256');
  });
});

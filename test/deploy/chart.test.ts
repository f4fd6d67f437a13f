import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateK8s } from './support/k8s-schemas.js';
import { CHART, helmRenderBinary, objects, render, type K8sObject, type Rendered } from './support/helm.js';
import { allowed, podOf, type Endpoint, type Pod } from './support/network-policy.js';

// ADR 0041: the Helm chart, rendered as `helm template` renders it (support/helm.ts) and
// checked object by object: validity against the Kubernetes schemas, names and selectors per
// release, pod security, probes, credentials only by reference, and the network flows.
const NS = 'platform';
const SERVICES = { identity: 50051, projects: 50052, 'monitoring-data': 50053, reports: 50054, webhooks: 50055 } as const;
const COMPONENTS = ['gateway', ...Object.keys(SERVICES)].sort();
const CREDENTIALS = ['MP_DATABASE_URL', 'MP_NATS_URL', 'MP_REDIS_URL', 'MP_SECRETS_KEY', 'MP_ADMIN_PASSWORD'];

let work: string;
const valuesFile = (name: string, yaml: string) => {
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, yaml);
  return file;
};
const byName = (r: Rendered, kind: string, name: string) => objects(r, kind).find((o) => o.metadata.name === name)!;
const podSpec = (d: K8sObject) => d.spec.template.spec;
const container = (d: K8sObject) => podSpec(d).containers[0];
const envOf = (d: K8sObject) => Object.fromEntries(container(d).env.map((e: { name: string }) => [e.name, e]));
const deployments = (r: Rendered) => objects(r, 'Deployment');
const componentOf = (o: K8sObject) => o.metadata.labels!['app.kubernetes.io/component']!;

beforeAll(() => {
  helmRenderBinary();
  work = mkdtempSync(join(tmpdir(), 'mp-chart-'));
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the Helm chart renders valid Kubernetes objects', () => {
  const ciFiles = readdirSync(join(CHART, 'ci')).filter((f) => f.endsWith('-values.yaml'));

  it('has CI values files, and each renders objects the Kubernetes schemas accept', () => {
    expect(ciFiles).toEqual(expect.arrayContaining(['default-values.yaml', 'mtls-values.yaml', 'small-values.yaml']));
    for (const file of ciFiles) {
      const r = render({ files: [join(CHART, 'ci', file)] });
      expect(r.manifests.length).toBeGreaterThan(10);
      for (const { template, object } of r.manifests) expect([template, validateK8s(object)]).toEqual([template, []]);
    }
  });

  it('would be refused by the schemas if an object were wrong (the validation is not a pass-through)', () => {
    const d = structuredClone(deployments(render())[0]!);
    container(d).ports[0].containerPort = 'https';
    expect(validateK8s(d).join('\n')).toMatch(/containerPort/);
    expect(validateK8s({ ...d, kind: 'Deploymnet' })).toEqual(['no schema for apps/v1 Deploymnet']);
  });
});

describe('names, labels and selectors', () => {
  it('names resources <release>-<chart>-<component>, or <release>-<component> when the release holds the chart name', () => {
    const names = (r: Rendered, kind: string) =>
      objects(r, kind)
        .map((o) => o.metadata.name)
        .sort();
    expect(names(render({ release: 'mp' }), 'Deployment')).toEqual(COMPONENTS.map((c) => `mp-monitoring-platform-${c}`));
    expect(names(render({ release: 'monitoring-platform' }), 'Deployment')).toEqual(COMPONENTS.map((c) => `monitoring-platform-${c}`));
    expect(names(render({ release: 'prod-monitoring-platform' }), 'Deployment')).toEqual(COMPONENTS.map((c) => `prod-monitoring-platform-${c}`));
    const long = render({ release: 'a-very-long-release-name-for-the-production-cluster-eu' });
    for (const s of objects(long, 'Service')) expect(s.metadata.name.length).toBeLessThanOrEqual(63);
    for (const o of render().manifests) expect(o.object.metadata.name).not.toMatch(/mp-mp-/);
  });

  it('labels every object with the recommended labels, and selects pods by chart, release and component', () => {
    const r = render({ release: 'mp' });
    for (const { object } of r.manifests) {
      expect(object.metadata.labels).toMatchObject({
        'app.kubernetes.io/name': 'monitoring-platform',
        'app.kubernetes.io/instance': 'mp',
        'app.kubernetes.io/managed-by': 'Helm',
        'app.kubernetes.io/version': '0.1.0',
        'helm.sh/chart': 'monitoring-platform-0.4.0',
      });
    }
    for (const d of deployments(r)) {
      const selector = d.spec.selector.matchLabels;
      expect(selector).toEqual({
        'app.kubernetes.io/name': 'monitoring-platform',
        'app.kubernetes.io/instance': 'mp',
        'app.kubernetes.io/component': componentOf(d),
      });
      expect(d.spec.template.metadata.labels).toMatchObject(selector);
    }
  });

  it('keeps two releases in one namespace apart: no shared name, no selector that picks the other release’s pods', () => {
    const a = render({ release: 'blue' });
    const b = render({ release: 'green' });
    const namesA = new Set(a.manifests.map((m) => `${m.object.kind}/${m.object.metadata.name}`));
    expect(b.manifests.filter((m) => namesA.has(`${m.object.kind}/${m.object.metadata.name}`))).toEqual([]);
    // the pods of Deployments, of the migration Job and the helm test Pod
    const pods = [...deployments(a), ...deployments(b), ...objects(a, 'Job'), ...objects(b, 'Job'), ...objects(a, 'Pod'), ...objects(b, 'Pod')].map((d) => ({
      release: d.metadata.labels!['app.kubernetes.io/instance'],
      component: componentOf(d),
      labels: d.kind === 'Pod' ? d.metadata.labels! : d.spec.template.metadata.labels,
    }));
    const matches = (sel: Record<string, string>) => pods.filter((p) => Object.entries(sel).every(([k, v]) => p.labels[k] === v));
    for (const r of [a, b]) {
      const release = r === a ? 'blue' : 'green';
      const selectors: [string, Record<string, string>][] = [
        ...objects(r, 'Service').map((s) => [`Service ${s.metadata.name}`, s.spec.selector] as [string, Record<string, string>]),
        ...objects(r, 'PodDisruptionBudget').map((p) => [`PDB ${p.metadata.name}`, p.spec.selector.matchLabels] as [string, Record<string, string>]),
        ...objects(r, 'NetworkPolicy').map((p) => [`NetworkPolicy ${p.metadata.name}`, p.spec.podSelector.matchLabels] as [string, Record<string, string>]),
      ];
      for (const [what, sel] of selectors) {
        const picked = matches(sel);
        expect([what, picked.filter((p) => p.release !== release)]).toEqual([what, []]);
        expect([what, picked.length]).not.toEqual([what, 0]);
        if (!what.endsWith('-default-deny')) expect([what, new Set(picked.map((p) => p.component)).size]).toEqual([what, 1]);
      }
    }
  });
});

describe('one Deployment, Service, ServiceAccount and disruption budget per component', () => {
  it('makes each, with autoscaling for the gateway and monitoring-data by default', () => {
    const r = render();
    const components = (kind: string) => objects(r, kind).map(componentOf).sort();
    expect(components('Deployment')).toEqual(COMPONENTS);
    expect(components('ServiceAccount')).toEqual(COMPONENTS);
    expect(components('PodDisruptionBudget')).toEqual(COMPONENTS);
    expect(components('HorizontalPodAutoscaler')).toEqual(['gateway', 'monitoring-data']);
    for (const hpa of objects(r, 'HorizontalPodAutoscaler')) {
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: hpa.metadata.name });
      // The autoscaler owns the replica count: the Deployment leaves it out, so an upgrade does not reset it.
      expect(byName(r, 'Deployment', hpa.metadata.name).spec.replicas).toBeUndefined();
    }
    for (const d of deployments(r)) {
      expect(podSpec(d).serviceAccountName).toBe(d.metadata.name);
      expect(podSpec(d).automountServiceAccountToken).toBe(false);
      expect(container(d).command).toEqual(['node', `services/${componentOf(d)}/dist/main.js`]);
    }
    expect(byName(r, 'Deployment', 'mp-monitoring-platform-identity').spec.replicas).toBe(2);
  });

  it('runs the reports service on 50054 and tells the gateway where it is', () => {
    const r = render();
    const reports = byName(r, 'Deployment', 'mp-monitoring-platform-reports');
    expect(envOf(reports).MP_REPORTS_GRPC_PORT).toEqual({ name: 'MP_REPORTS_GRPC_PORT', value: '50054' });
    const gatewayEnv = envOf(byName(r, 'Deployment', 'mp-monitoring-platform-gateway'));
    for (const [name, port] of Object.entries(SERVICES)) {
      const addrEnv = `MP_${name.toUpperCase().replace('-', '_')}_ADDR`;
      const svc = byName(r, 'Service', `mp-monitoring-platform-${name}`);
      expect(gatewayEnv[addrEnv].value).toBe(`dns:///${svc.metadata.name}:${port}`);
      // Headless, so gRPC clients see every ready pod; the port is the one the pods listen on.
      expect(svc.spec.clusterIP).toBe('None');
      expect(svc.spec.ports).toEqual(expect.arrayContaining([{ name: 'grpc', port, targetPort: 'grpc' }]));
      const pod = byName(r, 'Deployment', svc.metadata.name);
      expect(container(pod).ports).toEqual(expect.arrayContaining([{ name: 'grpc', containerPort: port }]));
    }
    // Services find those they call: monitoring-data asks projects (and identity for the plans'
    // raw retention), projects tells monitoring-data.
    expect(envOf(byName(r, 'Deployment', 'mp-monitoring-platform-monitoring-data')).MP_PROJECTS_ADDR.value).toBe(
      'dns:///mp-monitoring-platform-projects:50052',
    );
    expect(envOf(byName(r, 'Deployment', 'mp-monitoring-platform-monitoring-data')).MP_IDENTITY_ADDR.value).toBe(
      'dns:///mp-monitoring-platform-identity:50051',
    );
    expect(envOf(byName(r, 'Deployment', 'mp-monitoring-platform-projects')).MP_MONITORING_DATA_ADDR.value).toBe(
      'dns:///mp-monitoring-platform-monitoring-data:50053',
    );
    expect(envOf(byName(r, 'Deployment', 'mp-monitoring-platform-identity')).MP_PROJECTS_ADDR).toBeUndefined();
  });

  it('keeps the ops port off the public gateway Service', () => {
    const r = render();
    const pub = byName(r, 'Service', 'mp-monitoring-platform-gateway');
    expect(pub.spec.type).toBe('LoadBalancer');
    expect(pub.spec.externalTrafficPolicy).toBe('Local');
    expect(pub.spec.ports.map((p: { name: string }) => p.name)).toEqual(['https', 'https-sandbox']);
    expect(byName(r, 'Service', 'mp-monitoring-platform-gateway-internal').spec).toMatchObject({
      clusterIP: 'None',
      ports: [{ name: 'ops', port: 9464, targetPort: 'ops' }],
    });
  });
});

describe('pods', () => {
  it('run as non-root with a read-only root filesystem, no capabilities, and an emptyDir for /tmp', () => {
    for (const d of deployments(render())) {
      expect(podSpec(d).securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(container(d).securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(container(d).volumeMounts).toEqual(expect.arrayContaining([{ name: 'tmp', mountPath: '/tmp' }]));
      expect(podSpec(d).volumes).toEqual(expect.arrayContaining([{ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } }]));
    }
  });

  it('spread each component’s replicas over the nodes', () => {
    for (const d of deployments(render())) {
      expect(podSpec(d).topologySpreadConstraints).toEqual([
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: d.spec.selector.matchLabels } },
      ]);
    }
    const off = render({ files: [valuesFile('nospread', 'spreadAcrossNodes: false\n')] });
    for (const d of deployments(off)) expect(podSpec(d).topologySpreadConstraints).toBeUndefined();
  });

  it('are probed on the internal ops port: started by /livez, in rotation by /readyz, restarted by /livez', () => {
    for (const d of deployments(render())) {
      const c = container(d);
      expect(c.ports).toEqual(expect.arrayContaining([{ name: 'ops', containerPort: 9464 }]));
      expect(c.startupProbe.httpGet).toEqual({ path: '/livez', port: 'ops' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' });
      expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'ops' });
      expect(envFromConfig(d).MP_OPS_PORT).toBe('9464');
    }
    const moved = render({ files: [valuesFile('ops', 'ops: { port: 9100 }\n')] });
    for (const d of deployments(moved)) expect(container(d).ports).toEqual(expect.arrayContaining([{ name: 'ops', containerPort: 9100 }]));
    expect(byName(moved, 'ConfigMap', 'mp-monitoring-platform-config').data!.MP_OPS_PORT).toBe('9100');
  });

  it('drain on the way out: a preStop wait, then a drain bounded to end before the grace period does', () => {
    for (const d of deployments(render())) {
      expect(container(d).lifecycle.preStop).toEqual({ exec: { command: ['sleep', '5'] } });
      expect(podSpec(d).terminationGracePeriodSeconds).toBe(40);
    }
    // 40 s grace − 5 s preStop − 5 s margin.
    expect(byName(render(), 'ConfigMap', 'mp-monitoring-platform-config').data!.MP_SHUTDOWN_TIMEOUT_MS).toBe('30000');
    const longer = render({ files: [valuesFile('drain', 'drain: { preStopSeconds: 10, terminationGracePeriodSeconds: 120 }\n')] });
    expect(byName(longer, 'ConfigMap', 'mp-monitoring-platform-config').data!.MP_SHUTDOWN_TIMEOUT_MS).toBe('105000');
    expect(() => render({ files: [valuesFile('drain', 'drain: { preStopSeconds: 10, terminationGracePeriodSeconds: 15 }\n')] })).toThrow(
      /drain.terminationGracePeriodSeconds must exceed drain.preStopSeconds by at least 10 seconds/,
    );
  });

  it('roll when their settings change: the config checksum follows the ConfigMap', () => {
    const checksum = (r: Rendered) => new Set(deployments(r).map((d) => d.spec.template.metadata.annotations['checksum/config']));
    const before = render();
    const cm = byName(before, 'ConfigMap', 'mp-monitoring-platform-config');
    expect(checksum(before).size).toBe(1);
    const after = render({ files: [valuesFile('loglevel', 'env: { MP_LOG_LEVEL: debug }\n')] });
    expect(byName(after, 'ConfigMap', 'mp-monitoring-platform-config').data!.MP_LOG_LEVEL).toBe('debug');
    expect([...checksum(after)][0]).not.toBe([...checksum(before)][0]);
    expect([...checksum(render())][0]).toBe([...checksum(before)][0]);
    expect([...checksum(before)][0]).toMatch(/^[0-9a-f]{64}$/);
    expect(cm.data).toEqual({
      MP_GRPC_HOST: '0.0.0.0',
      MP_NATS_STREAM: 'MP_EVENTS',
      MP_NATS_SUBJECT_PREFIX: 'mp.events',
      MP_OPS_HOST: '0.0.0.0',
      MP_OPS_PORT: '9464',
      MP_SHUTDOWN_TIMEOUT_MS: '30000',
    });
  });

  it('use the image by tag (the appVersion by default) or by digest', () => {
    for (const d of deployments(render())) expect(container(d).image).toBe('monitoring-platform:0.1.0');
    const digest = `sha256:${createHash('sha256').update('x').digest('hex')}`;
    const pinned = render({ files: [valuesFile('digest', `image: { repository: reg.example/mp, tag: '9.9.9', digest: '${digest}' }\n`)] });
    for (const d of deployments(pinned)) expect(container(d).image).toBe(`reg.example/mp@${digest}`);
  });
});

function envFromConfig(d: K8sObject): Record<string, string> {
  const r = render();
  const ref = container(d).envFrom[0].configMapRef.name;
  return byName(r, 'ConfigMap', ref).data!;
}

describe('credentials', () => {
  it('come from existing Secrets by reference: none rendered, none inlined', () => {
    const r = render({ files: [join(CHART, 'ci', 'mtls-values.yaml')] });
    expect(objects(r, 'Secret')).toEqual([]);
    const text = JSON.stringify(r.manifests);
    expect(text).not.toMatch(/postgres(ql)?:\/\/|nats:\/\/|rediss?:\/\/|BEGIN [A-Z ]*PRIVATE KEY/);
    for (const d of deployments(r)) {
      for (const e of container(d).env) {
        if (CREDENTIALS.includes(e.name)) {
          expect(e.value).toBeUndefined();
          expect(e.valueFrom.secretKeyRef.name).toMatch(/^mp-(infra|secrets|admin)$/);
        }
      }
    }
    const env = (c: string) => envOf(byName(r, 'Deployment', `mp-monitoring-platform-${c}`));
    expect(env('gateway').MP_REDIS_URL.valueFrom).toEqual({ secretKeyRef: { name: 'mp-infra', key: 'redis-url' } });
    expect(env('identity').MP_REDIS_URL.valueFrom).toEqual({ secretKeyRef: { name: 'mp-infra', key: 'redis-url' } });
    expect(env('monitoring-data').MP_REDIS_URL.valueFrom).toEqual({ secretKeyRef: { name: 'mp-infra', key: 'redis-url' } });
    expect(env('projects').MP_REDIS_URL).toBeUndefined();
    expect(env('gateway').MP_DATABASE_URL).toBeUndefined();
    expect(env('identity').MP_ADMIN_PASSWORD.valueFrom).toEqual({ secretKeyRef: { name: 'mp-admin', key: 'admin-password' } });
    expect(env('projects').MP_ADMIN_PASSWORD).toBeUndefined();
    for (const c of Object.keys(SERVICES)) {
      expect(env(c).MP_DATABASE_URL.valueFrom).toEqual({ secretKeyRef: { name: 'mp-infra', key: 'database-url' } });
      expect(env(c).MP_NATS_URL.valueFrom).toEqual({ secretKeyRef: { name: 'mp-infra', key: 'nats-url' } });
      expect(env(c).MP_SECRETS_KEY.valueFrom).toEqual({ secretKeyRef: { name: 'mp-secrets', key: 'secrets-key' } });
    }
    // The one URL in the settings is the trace collector's, and the schema refuses a user or password in it.
    const urls = Object.entries(byName(r, 'ConfigMap', 'mp-monitoring-platform-config').data!).filter(([, v]) => v.includes('://'));
    expect(urls).toEqual([['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://otel-collector.observability:4318']]);
  });

  it('give each pod only its own service key and mTLS pair, and every public key', () => {
    const plain = render();
    const mtls = render({ files: [join(CHART, 'ci', 'mtls-values.yaml')] });
    for (const d of deployments(plain)) expect(podSpec(d).volumes.map((v: { name: string }) => v.name)).not.toContain('grpc-tls');
    for (const d of deployments(mtls)) {
      const party = componentOf(d);
      const vols = Object.fromEntries(podSpec(d).volumes.map((v: { name: string }) => [v.name, v]));
      expect(vols['service-key'].secret).toEqual({ secretName: 'mp-service-keys', defaultMode: 0o400, items: [{ key: `${party}.key`, path: 'service.key' }] });
      expect(vols['peer-keys'].secret.items.map((i: { key: string }) => i.key)).toEqual(
        ['gateway', 'identity', 'projects', 'monitoring-data', 'reports', 'webhooks', 'operator'].map((p) => `${p}.pub`),
      );
      expect(vols['grpc-tls'].secret.items).toEqual([
        { key: 'ca.crt', path: 'ca.crt' },
        { key: `${party}.crt`, path: 'tls.crt' },
        { key: `${party}.key`, path: 'tls.key' },
      ]);
      expect(envOf(d).MP_GRPC_TLS_CERT_FILE.value).toBe('/etc/mp/grpc-tls/tls.crt');
      expect(container(d).volumeMounts).toEqual(expect.arrayContaining([{ name: 'grpc-tls', mountPath: '/etc/mp/grpc-tls', readOnly: true }]));
    }
  });
});

describe('the NetworkPolicies allow exactly the platform’s flows', () => {
  let r: Rendered;
  let policies: K8sObject[];
  let pods: Record<string, Pod>;
  const at = (c: string): Endpoint => ({ pod: pods[c]! });
  const PUBLIC = { ip: '93.184.216.34' };
  const PRIVATE = ['10.1.2.3', '172.16.5.4', '192.168.1.10', '169.254.169.254', '100.64.0.1', '127.0.0.1'];
  const DNS: Endpoint = {
    pod: { namespace: 'kube-system', namespaceLabels: { 'kubernetes.io/metadata.name': 'kube-system' }, labels: { 'k8s-app': 'kube-dns' }, ports: { dns: 53 } },
  };

  beforeAll(() => {
    r = render();
    const other = render({ release: 'other' });
    policies = [...objects(r, 'NetworkPolicy'), ...objects(other, 'NetworkPolicy')].map((p) => ({ ...p, metadata: { ...p.metadata, namespace: NS } }));
    pods = Object.fromEntries(deployments(r).map((d) => [componentOf(d), podOf(d, NS)]));
    pods['test'] = podOf(objects(r, 'Pod')[0]!, NS);
    for (const d of deployments(other)) pods[`other-${componentOf(d)}`] = podOf(d, NS);
    pods['stranger'] = { namespace: NS, labels: { app: 'something-else' }, ports: {} };
  });

  it('denies by default every pod of the release', () => {
    const deny = objects(r, 'NetworkPolicy').find((p) => p.metadata.name.endsWith('-default-deny'))!;
    expect(deny.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'monitoring-platform', 'app.kubernetes.io/instance': 'mp' } },
      policyTypes: ['Ingress', 'Egress'],
    });
  });

  it('lets clients reach the gateway’s HTTPS ports, and nothing else of the release from outside', () => {
    expect(allowed(policies, PUBLIC, at('gateway'), 8443)).toBe(true);
    expect(allowed(policies, PUBLIC, at('gateway'), 8444)).toBe(true);
    for (const [c, port] of Object.entries(SERVICES)) expect([c, allowed(policies, PUBLIC, at(c), port)]).toEqual([c, false]);
    expect(allowed(policies, PUBLIC, at('gateway'), 9464)).toBe(false);
    expect(allowed(policies, at('stranger'), at('identity'), 50051)).toBe(false);
  });

  it('lets the gateway call every service’s gRPC port, and services only those they call', () => {
    const calls: Record<string, string[]> = {
      gateway: Object.keys(SERVICES),
      projects: ['monitoring-data'],
      'monitoring-data': ['projects', 'identity'],
      reports: ['projects', 'monitoring-data'],
      // notification rules check their maker's access; acknowledge links acknowledge (ADR 0090)
      webhooks: ['projects', 'monitoring-data'],
    };
    for (const from of COMPONENTS) {
      for (const [to, port] of Object.entries(SERVICES)) {
        if (from === to) continue;
        expect([from, to, allowed(policies, at(from), at(to), port)]).toEqual([from, to, (calls[from] ?? []).includes(to)]);
      }
      expect([from, allowed(policies, at(from), at('gateway'), 8443)]).toEqual([from, false]);
    }
    // The other release's gateway cannot call this release's services, nor this one the other's.
    expect(allowed(policies, at('other-gateway'), at('identity'), 50051)).toBe(false);
    expect(allowed(policies, at('gateway'), at('other-identity'), 50051)).toBe(false);
  });

  it('lets services reach PostgreSQL and NATS, the gateway, identity and monitoring-data Redis, and everyone DNS', () => {
    const db = { ip: '10.30.0.5' };
    for (const c of Object.keys(SERVICES)) {
      // identity bumps the auth versions of the gateways' credential caches in Redis (ADR 0119);
      // monitoring-data paces logger file imports at the tenant's data-record limit (ADR 0120)
      const redis = c === 'identity' || c === 'monitoring-data';
      expect([c, allowed(policies, at(c), db, 5432), allowed(policies, at(c), db, 4222), allowed(policies, at(c), db, 6379)]).toEqual([c, true, true, redis]);
    }
    expect([allowed(policies, at('gateway'), db, 6379), allowed(policies, at('gateway'), db, 5432), allowed(policies, at('gateway'), db, 4222)]).toEqual([
      true,
      false,
      false,
    ]);
    for (const c of COMPONENTS) expect([c, allowed(policies, at(c), DNS, 53, 'UDP'), allowed(policies, at(c), DNS, 53, 'TCP')]).toEqual([c, true, true]);
  });

  it('lets webhooks reach receivers on the internet but no private, loopback or metadata address', () => {
    expect(allowed(policies, at('webhooks'), PUBLIC, 443)).toBe(true);
    expect(allowed(policies, at('webhooks'), PUBLIC, 8080)).toBe(true);
    expect(allowed(policies, at('webhooks'), { ip: '2606:4700::6810:85e5' }, 443)).toBe(true);
    for (const ip of [...PRIVATE, 'fd00::1', 'fe80::1']) expect([ip, allowed(policies, at('webhooks'), { ip }, 443)]).toEqual([ip, false]);
    for (const c of COMPONENTS.filter((x) => x !== 'webhooks')) expect([c, allowed(policies, at(c), PUBLIC, 443)]).toEqual([c, false]);
  });

  it('lets metrics scrapers and the helm test pod reach the ops port only', () => {
    const prometheus: Endpoint = { pod: { namespace: 'monitoring', namespaceLabels: {}, labels: { app: 'prometheus' }, ports: {} } };
    for (const c of COMPONENTS) {
      expect([c, allowed(policies, prometheus, at(c), 9464), allowed(policies, at('test'), at(c), 9464)]).toEqual([c, true, true]);
    }
    expect(allowed(policies, at('test'), at('identity'), 50051)).toBe(false);
    expect(allowed(policies, at('test'), PUBLIC, 443)).toBe(false);
  });

  it('narrows infrastructure and clients to the peers given in values', () => {
    const narrow = render({ files: [join(CHART, 'ci', 'mtls-values.yaml')] });
    const p = objects(narrow, 'NetworkPolicy').map((x) => ({ ...x, metadata: { ...x.metadata, namespace: NS } }));
    const local: Record<string, Pod> = Object.fromEntries(deployments(narrow).map((d) => [componentOf(d), podOf(d, NS)]));
    const redisInside = { ip: '10.20.3.4' };
    const redisElsewhere = { ip: '10.99.3.4' };
    expect(allowed(p, { pod: local.gateway! }, redisInside, 6379)).toBe(true);
    expect(allowed(p, { pod: local.gateway! }, redisElsewhere, 6379)).toBe(false);
    expect(allowed(p, { pod: local.identity! }, redisInside, 6379)).toBe(true);
    expect(allowed(p, { pod: local.identity! }, redisElsewhere, 6379)).toBe(false);
    const ingressNginx: Endpoint = {
      pod: { namespace: 'ingress-nginx', namespaceLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' }, labels: {}, ports: {} },
    };
    expect(allowed(p, ingressNginx, { pod: local.gateway! }, 8443)).toBe(true);
    expect(allowed(p, PUBLIC, { pod: local.gateway! }, 8443)).toBe(false);
  });
});

describe('operability', () => {
  it('scrapes every component’s /metrics through a ServiceMonitor when asked', () => {
    expect(objects(render(), 'ServiceMonitor')).toEqual([]);
    const r = render({ files: [join(CHART, 'ci', 'mtls-values.yaml')] });
    const [sm] = objects(r, 'ServiceMonitor');
    expect(sm!.metadata.labels!.release).toBe('kube-prometheus-stack');
    expect(sm!.spec.endpoints).toEqual([{ port: 'ops', path: '/metrics', scheme: 'http', interval: '30s', scrapeTimeout: '10s' }]);
    const selected = objects(r, 'Service').filter((s) =>
      Object.entries(sm!.spec.selector.matchLabels as Record<string, string>).every(([k, v]) => s.metadata.labels![k] === v),
    );
    expect(selected.map(componentOf).sort()).toEqual(COMPONENTS);
    for (const s of selected) expect(s.spec.ports.map((p: { name: string }) => p.name)).toContain('ops');
    expect(selected.map((s) => s.metadata.name)).not.toContain('mp-monitoring-platform-gateway');
  });

  it('has a helm test pod that asks /readyz of every component through Services that exist', () => {
    const r = render();
    const [pod] = objects(r, 'Pod');
    expect(pod!.metadata.annotations!['helm.sh/hook']).toBe('test');
    const c = pod!.spec.containers[0];
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(c.command.slice(0, 3)).toEqual(['node', '--input-type=module', '-e']);
    expect(c.command[3]).toContain('/readyz');
    const targets = c.env.find((e: { name: string }) => e.name === 'MP_TEST_TARGETS').value.split(',');
    const services = new Set(objects(r, 'Service').map((s) => s.metadata.name));
    expect(targets.filter((t: string) => !services.has(t))).toEqual([]);
    expect(targets).toHaveLength(COMPONENTS.length);
  });

  it('prints NOTES naming the Secrets to create and how to reach the API', () => {
    const notes = render({ release: 'mp', namespace: 'obs' }).notes;
    expect(notes).toContain('release "mp" in namespace "obs"');
    for (const s of ['mp-infra (key database-url)', 'mp-secrets (key secrets-key)', 'mp-service-keys', 'mp-gateway-tls']) expect(notes).toContain(s);
    expect(notes).toContain('kubectl -n obs get service mp-monitoring-platform-gateway');
    expect(notes).toContain('helm test mp -n obs');
    expect(render({ files: [join(CHART, 'ci', 'small-values.yaml')] }).notes).toContain('port-forward service/mp-gateway 8443:443');
  });
});

describe('alarm notifications (ADR 0090)', () => {
  it('give the webhooks pods (and the reports pods) the SMTP URL from its Secret, the link base URL and the schedule; none without smtpUrl', () => {
    const on = render({
      files: [
        valuesFile(
          'smtp',
          'notifications:\n  smtpUrl: { name: mp-smtp, key: smtp-url }\n  publicBaseUrl: https://monitoring.example.com/v3\n  mailFrom: "Alarms <alarms@example.com>"\n',
        ),
      ],
    });
    const env = envOf(byName(on, 'Deployment', 'mp-monitoring-platform-webhooks'));
    expect(env.MP_SMTP_URL.valueFrom).toEqual({ secretKeyRef: { name: 'mp-smtp', key: 'smtp-url' } });
    expect(env.MP_SMTP_URL.value).toBeUndefined();
    expect(env.MP_PUBLIC_BASE_URL.value).toBe('https://monitoring.example.com/v3');
    expect(env.MP_MAIL_FROM.value).toBe('Alarms <alarms@example.com>');
    expect(env.MP_NOTIFY_MIN_INTERVAL_SECONDS.value).toBe('60');
    expect(env.MP_PROJECTS_ADDR.value).toMatch(/^dns:\/\/\/mp-monitoring-platform-projects:50052$/);
    expect(env.MP_MONITORING_DATA_ADDR.value).toMatch(/^dns:\/\/\/mp-monitoring-platform-monitoring-data:50053$/);
    expect(envOf(byName(on, 'Deployment', 'mp-monitoring-platform-projects')).MP_SMTP_URL).toBeUndefined();
    const smtpEgress = objects(on, 'NetworkPolicy')
      .find((p) => p.metadata.name === 'mp-monitoring-platform-webhooks')!
      .spec.egress.filter((e: { ports?: { port: number }[] }) => e.ports?.some((x) => x.port === 465));
    expect(smtpEgress).toHaveLength(1);
    // the reports pods mail scheduled reports through the same server and From (ADR 0115)
    const reportsEnv = envOf(byName(on, 'Deployment', 'mp-monitoring-platform-reports'));
    expect(reportsEnv.MP_SMTP_URL.valueFrom).toEqual({ secretKeyRef: { name: 'mp-smtp', key: 'smtp-url' } });
    expect(reportsEnv.MP_MAIL_FROM.value).toBe('Alarms <alarms@example.com>');
    const reportsSmtp = objects(on, 'NetworkPolicy')
      .find((p) => p.metadata.name === 'mp-monitoring-platform-reports')!
      .spec.egress.filter((e: { ports?: { port: number }[] }) => e.ports?.some((x) => x.port === 465));
    expect(reportsSmtp).toHaveLength(1);
    expect(envOf(byName(render({}), 'Deployment', 'mp-monitoring-platform-reports')).MP_SMTP_URL).toBeUndefined();

    const off = envOf(byName(render({}), 'Deployment', 'mp-monitoring-platform-webhooks'));
    expect(off.MP_SMTP_URL).toBeUndefined();
    expect(() => render({ files: [valuesFile('smtp-no-url', 'notifications:\n  smtpUrl: { name: mp-smtp, key: smtp-url }\n')] })).toThrow(
      /notifications.publicBaseUrl/,
    );
  });
});

describe('values.schema.json refuses values the chart cannot honour', () => {
  const refused: [string, string, RegExp][] = [
    ['a misspelt key', 'gateway:\n  replicaz: 3\n', /gateway: Additional property replicaz is not allowed/],
    ['an unknown service', 'services:\n  billing: { replicas: 1, grpcPort: 50060 }\n', /services: Additional property billing is not allowed/],
    ['a port out of range', 'services:\n  reports: { grpcPort: 70000 }\n', /services\.reports\.grpcPort/],
    ['no replicas', 'gateway:\n  replicas: 0\n', /gateway\.replicas/],
    ['a number as a string', 'ops:\n  port: "9464"\n', /ops\.port: Invalid type/],
    ['a credential without its Secret', 'secrets:\n  databaseUrl: { name: "", key: database-url }\n', /secrets\.databaseUrl\.name/],
    ['a credential as a plain value', 'secrets:\n  redisUrl: "redis://:hunter2@redis:6379"\n', /secrets\.redisUrl: Invalid type/],
    ['a malformed digest', 'image:\n  digest: latest\n', /image\.digest/],
    ['a setting that is no MP_ variable name', 'env:\n  "log level": debug\n', /env: Property name of "log level" does not match/],
    ['an unknown pull policy', 'image:\n  pullPolicy: Sometimes\n', /image\.pullPolicy/],
  ];
  it.each(refused)('refuses %s', (_what, yaml, message) => {
    expect(() => render({ files: [valuesFile('bad', yaml)] })).toThrow(message);
  });

  it('accepts additions, and refuses a null that removes a required default', () => {
    expect(() => render({ files: [valuesFile('null', 'gateway:\n  podAnnotations: { team: api }\n')] })).not.toThrow();
    expect(() => render({ files: [valuesFile('drop', 'gateway:\n  service: null\n')] })).toThrow(/gateway: service is required/);
  });
});

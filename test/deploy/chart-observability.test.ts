import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { validateK8s } from './support/k8s-schemas.js';
import { allowed, podOf } from './support/network-policy.js';
import { CHART, REPO, helmRenderBinary, objects, render, type K8sObject, type Rendered } from './support/helm.js';

// Observability in the chart (ADR 0036): the alert rules as a PrometheusRule, the dashboard for Grafana's sidecar,
// scrape jobs named as the rules and the dashboard expect, tracing through the OTEL_* variables,
// and the ops server where the probes look. One copy of the rules and of the dashboard: the
// chart's files/ (Helm reads nothing outside the chart).
const COMPONENTS = ['gateway', 'identity', 'monitoring-data', 'projects', 'reports', 'webhooks'];
const ALERTS = join(CHART, 'files', 'alerts.yaml');
const DASHBOARD = join(CHART, 'files', 'grafana-dashboard.json');
const OTEL = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_SERVICE_NAME'];

let work: string;
const valuesFile = (yaml: string) => {
  const file = join(work, `v${readdirSync(work).length}.yaml`);
  writeFileSync(file, yaml);
  return file;
};
const withValues = (yaml: string, release = 'mp') => render({ release, files: [valuesFile(yaml)] });
const componentOf = (o: K8sObject) => o.metadata.labels!['app.kubernetes.io/component']!;

/** What a Deployment's container sees: its ConfigMap (envFrom), then its own env over it. */
function podEnv(r: Rendered, d: K8sObject): Record<string, string> {
  const c = d.spec.template.spec.containers[0];
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) Object.assign(env, objects(r, 'ConfigMap').find((m) => m.metadata.name === from.configMapRef.name)!.data);
  for (const e of c.env ?? []) env[e.name] = e.value ?? '<from a Secret or file>';
  return env;
}
const otelOf = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('OTEL_')));
const expectValid = (r: Rendered) => {
  for (const { template, object } of r.manifests) expect([template, validateK8s(object)]).toEqual([template, []]);
};

beforeAll(() => {
  helmRenderBinary();
  work = mkdtempSync(join(tmpdir(), 'mp-chart-obs-'));
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('one copy of the alert rules and the dashboard', () => {
  it('keeps them in the chart only; deploy/observability points there', () => {
    const copies = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? copies(join(dir, e.name)) : ['alerts.yaml', 'grafana-dashboard.json'].includes(e.name) ? [join(dir, e.name)] : [],
      );
    expect(copies(join(REPO, 'deploy')).sort()).toEqual([ALERTS, DASHBOARD]);
    expect(readdirSync(join(REPO, 'deploy', 'observability'))).toEqual(['README.md']);
    const readme = readFileSync(join(REPO, 'deploy', 'observability', 'README.md'), 'utf8');
    expect(readme).toContain('deploy/helm/monitoring-platform/files/alerts.yaml');
    expect(readme).toContain('deploy/helm/monitoring-platform/files/grafana-dashboard.json');
  });
});

describe('nothing of it by default', () => {
  it('renders no PrometheusRule, ServiceMonitor, dashboard or OTEL_* variable', () => {
    const r = render();
    expect(objects(r, 'PrometheusRule')).toEqual([]);
    expect(objects(r, 'ServiceMonitor')).toEqual([]);
    expect(objects(r, 'ConfigMap').map((m) => m.metadata.name)).toEqual(['mp-monitoring-platform-config']);
    for (const d of objects(r, 'Deployment')) expect(otelOf(podEnv(r, d))).toEqual({});
  });
});

describe('the PrometheusRule', () => {
  it('holds exactly the rule groups of files/alerts.yaml, with Prometheus’s own templates left alone', () => {
    const r = withValues('metrics: { prometheusRule: { enabled: true, labels: { release: kube-prometheus-stack } } }\n');
    const [rule, ...more] = objects(r, 'PrometheusRule');
    expect(more).toEqual([]);
    expect(rule!.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule!.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack', 'app.kubernetes.io/instance': 'mp' });
    const file = load(readFileSync(ALERTS, 'utf8')) as { groups: unknown[] };
    expect(rule!.spec).toEqual({ groups: file.groups });
    expect(JSON.stringify(rule!.spec)).toContain('{{ $value | humanizePercentage }}');
    expectValid(r);
  });

  it('would be refused by the Prometheus Operator’s schema if a rule were malformed', () => {
    const [rule] = objects(withValues('metrics: { prometheusRule: { enabled: true } }\n'), 'PrometheusRule');
    const broken = structuredClone(rule!);
    broken.spec.groups[0].rules[0].for = 10;
    expect(validateK8s(broken).join('\n')).toMatch(/for/);
  });

  it('names alerts that each have a runbook entry in docs/operations.md', () => {
    const [rule] = objects(withValues('metrics: { prometheusRule: { enabled: true } }\n'), 'PrometheusRule');
    const runbook = readFileSync(join(REPO, 'docs', 'operations.md'), 'utf8');
    const alerts = rule!.spec.groups.flatMap((g: { rules: { alert: string }[] }) => g.rules);
    expect(alerts.length).toBeGreaterThan(0);
    for (const a of alerts) {
      expect(runbook).toContain(`### ${a.alert}\n`);
      expect(a.annotations.runbook).toBe(`docs/operations.md#${a.alert.toLowerCase()}`);
    }
  });
});

describe('the Grafana dashboard', () => {
  it('is files/grafana-dashboard.json in a ConfigMap labelled for Grafana’s sidecar', () => {
    const r = withValues('metrics: { grafanaDashboard: { enabled: true, annotations: { grafana_folder: Platform } } }\n');
    const cm = objects(r, 'ConfigMap').find((m) => m.metadata.name === 'mp-monitoring-platform-dashboard')!;
    expect(cm.metadata.labels!.grafana_dashboard).toBe('1');
    expect(cm.metadata.annotations).toEqual({ grafana_folder: 'Platform' });
    expect(Object.keys(cm.data!)).toEqual(['monitoring-platform.json']);
    expect(cm.data!['monitoring-platform.json']).toBe(readFileSync(DASHBOARD, 'utf8').trimEnd());
    expect(JSON.parse(cm.data!['monitoring-platform.json']!).uid).toBe('monitoring-platform');
    // Pods do not roll when only the dashboard changes: it is not their settings.
    const off = render();
    expect(objects(r, 'Deployment').map((d) => d.spec.template.metadata.annotations['checksum/config'])).toEqual(
      objects(off, 'Deployment').map((d) => d.spec.template.metadata.annotations['checksum/config']),
    );
    expectValid(r);
  });

  it('takes the sidecar label another Grafana looks for (a null drops the default one, as in any Helm map)', () => {
    const r = withValues('metrics: { grafanaDashboard: { enabled: true, labels: { dashboards: grafana-main, grafana_dashboard: null } } }\n');
    const cm = objects(r, 'ConfigMap').find((m) => m.metadata.name === 'mp-monitoring-platform-dashboard')!;
    expect(cm.metadata.labels).toMatchObject({ dashboards: 'grafana-main' });
    expect(cm.metadata.labels!.grafana_dashboard).toBeUndefined();
  });
});

describe('scrape jobs match what the alert rules and the dashboard query', () => {
  // Prometheus anchors a regex matcher at both ends.
  const matchers = (expr: string) =>
    [...expr.matchAll(/\bjob\s*(=~|=)\s*"([^"]*)"/g)].map(([, op, v]) => (op === '=' ? v!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : v!));
  const jobsOf = (r: Rendered) => {
    const [sm] = objects(r, 'ServiceMonitor');
    const selected = objects(r, 'Service').filter((s) =>
      Object.entries(sm!.spec.selector.matchLabels as Record<string, string>).every(([k, v]) => s.metadata.labels![k] === v),
    );
    // The Prometheus Operator names each target's job by the Service label the jobLabel names.
    return Object.fromEntries(selected.map((s) => [componentOf(s), { job: s.metadata.labels![sm!.spec.jobLabel]!, service: s.metadata.name }]));
  };

  it.each(['prod', 'monitoring-platform', 'mp'])('names every target’s job so the rules’ job matchers select it (release %s)', (release) => {
    const r = withValues('metrics: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true } }\n', release);
    const jobs = jobsOf(r);
    expect(Object.keys(jobs).sort()).toEqual(COMPONENTS);
    expect(new Set(Object.values(jobs).map((j) => j.job)).size).toBe(COMPONENTS.length);
    const [rule] = objects(r, 'PrometheusRule');
    const regexes = rule!.spec.groups.flatMap((g: { rules: { expr: string }[] }) => g.rules.flatMap((x) => matchers(x.expr)));
    expect(regexes.length).toBeGreaterThan(0);
    for (const re of regexes) {
      for (const [component, { job }] of Object.entries(jobs)) expect([component, job, new RegExp(`^(?:${re})$`).test(job)]).toEqual([component, job, true]);
    }
    if (release === 'prod') {
      // Without the jobLabel the job would be the Service's name, which the rules would miss.
      for (const { service } of Object.values(jobs)) expect(regexes.some((re: string) => new RegExp(`^(?:${re})$`).test(service))).toBe(false);
    }
  });

  it('has the dashboard query by its job variable, listing the jobs of a metric every process serves', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
    const exprs = JSON.stringify(dashboard)
      .match(/"expr":"(?:[^"\\]|\\.)*"/g)!
      .map((e) => JSON.parse(e.slice('"expr":'.length)) as string);
    expect(exprs.length).toBeGreaterThan(10);
    for (const e of exprs) expect([e, [...new Set(matchers(e))]]).toEqual([e, ['$job']]);
    const variable = dashboard.templating.list.find((v: { name: string }) => v.name === 'job');
    expect(variable.query).toMatch(/^label_values\(mp_process_[a-z_]+, job\)$/);
    const r = withValues('metrics: { serviceMonitor: { enabled: true } }\n', 'prod');
    const regex = variable.regex ? new RegExp(variable.regex) : /.*/;
    for (const { job } of Object.values(jobsOf(r))) expect(regex.test(job)).toBe(true);
  });
});

describe('tracing', () => {
  it('gives every pod the OTEL_* variables and its own service name when an endpoint is set', () => {
    const r = withValues('tracing: { endpoint: "http://otel-collector.observability:4318", sampler: parentbased_traceidratio, samplerArg: 0.1 }\n');
    const deployments = objects(r, 'Deployment');
    expect(deployments.map(componentOf).sort()).toEqual(COMPONENTS);
    for (const d of deployments) {
      expect(otelOf(podEnv(r, d))).toEqual({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
        OTEL_SERVICE_NAME: componentOf(d),
      });
    }
    expectValid(r);
  });

  it('leaves the sampler argument out when there is none, and everything out without an endpoint', () => {
    const r = withValues('tracing: { endpoint: "https://collector.example:4318/base", protocol: http/json }\n');
    for (const d of objects(r, 'Deployment'))
      expect(Object.keys(otelOf(podEnv(r, d))).sort()).toEqual(OTEL.filter((k) => k !== 'OTEL_TRACES_SAMPLER_ARG').sort());
    expect(podEnv(r, objects(r, 'Deployment')[0]!).OTEL_EXPORTER_OTLP_PROTOCOL).toBe('http/json');
    const off = withValues('tracing: { endpoint: "", sampler: parentbased_traceidratio, samplerArg: 0.5 }\n');
    for (const d of objects(off, 'Deployment')) expect(otelOf(podEnv(off, d))).toEqual({});
  });
});

describe('the NetworkPolicies and the trace collector', () => {
  const collector = { ip: '10.40.0.7' };
  const reach = (r: Rendered, port: number) => {
    const policies = objects(r, 'NetworkPolicy').map((p) => ({ ...p, metadata: { ...p.metadata, namespace: 'platform' } }));
    return objects(r, 'Deployment').map((d) => [componentOf(d), allowed(policies, { pod: podOf(d, 'platform') }, collector, port)]);
  };
  const all = (v: boolean) => COMPONENTS.map((c) => [c, v]);

  it('let every pod reach the collector on the endpoint’s port, and only when tracing is on', () => {
    expect(reach(render(), 4318).sort()).toEqual(all(false));
    const on = withValues('tracing: { endpoint: "http://otel-collector.observability:4318" }\n');
    expect(reach(on, 4318).sort()).toEqual(all(true));
    expect(reach(on, 4317).sort()).toEqual(all(false));
    expect(reach(withValues('tracing: { endpoint: "https://otlp.example.com/v1" }\n'), 443).sort()).toEqual(all(true));
  });

  it('narrow the collector to the peers given', () => {
    const narrowed = withValues('tracing: { endpoint: "http://c:4318" }\nnetworkPolicy: { otlp: { to: [{ ipBlock: { cidr: 10.50.0.0/16 } }] } }\n');
    expect(reach(narrowed, 4318).sort()).toEqual(all(false));
    const policies = objects(narrowed, 'NetworkPolicy').map((p) => ({ ...p, metadata: { ...p.metadata, namespace: 'platform' } }));
    const gateway = objects(narrowed, 'Deployment').find((d) => componentOf(d) === 'gateway')!;
    expect(allowed(policies, { pod: podOf(gateway, 'platform') }, { ip: '10.50.3.4' }, 4318)).toBe(true);
  });
});

describe('the ops server', () => {
  it.each([9464, 9100])('listens on every interface at the port the probes use (ops.port %d)', (port) => {
    const r = withValues(`ops: { port: ${port} }\n`);
    for (const d of objects(r, 'Deployment')) {
      const c = d.spec.template.spec.containers[0];
      const probed = new Set([c.startupProbe, c.readinessProbe, c.livenessProbe].map((p: { httpGet: { port: string } }) => p.httpGet.port));
      expect([...probed]).toEqual(['ops']);
      const probePort = c.ports.find((p: { name: string }) => p.name === 'ops').containerPort;
      expect(probePort).toBe(port);
      const env = podEnv(r, d);
      expect([componentOf(d), env.MP_OPS_HOST, env.MP_OPS_PORT]).toEqual([componentOf(d), '0.0.0.0', String(probePort)]);
    }
  });
});

describe('values.schema.json refuses observability values the chart cannot honour', () => {
  const refused: [string, string, RegExp][] = [
    ['a gRPC trace protocol (not in the image)', 'tracing: { protocol: grpc }\n', /tracing\.protocol/],
    ['an unknown sampler', 'tracing: { sampler: sometimes }\n', /tracing\.sampler/],
    ['a ratio above 1', 'tracing: { sampler: traceidratio, samplerArg: 1.5 }\n', /tracing\.samplerArg/],
    ['a ratio above 1 as text', 'tracing: { sampler: traceidratio, samplerArg: "1.5" }\n', /tracing\.samplerArg/],
    ['a ratio that is no number', 'tracing: { sampler: traceidratio, samplerArg: "ten percent" }\n', /tracing\.samplerArg/],
    ['a ratio sampler without its ratio', 'tracing: { sampler: parentbased_traceidratio }\n', /tracing\.samplerArg/],
    ['a ratio for a sampler that takes none', 'tracing: { sampler: always_on, samplerArg: 0.5 }\n', /tracing\.samplerArg/],
    ['an endpoint that is no http(s) URL', 'tracing: { endpoint: "otel-collector:4318" }\n', /tracing\.endpoint/],
    ['a user and password in the endpoint (it is a plain setting)', 'tracing: { endpoint: "https://user:secret@otlp.example.com" }\n', /tracing\.endpoint/],
    ['a misspelt tracing key', 'tracing: { enpoint: "http://c:4318" }\n', /tracing: Additional property enpoint is not allowed/],
    ['a misspelt metrics key', 'metrics: { prometheusRule: { enable: true } }\n', /metrics\.prometheusRule: Additional property enable is not allowed/],
    ['the ServiceMonitor where chart 0.2 had it', 'serviceMonitor: { enabled: true }\n', /Additional property serviceMonitor is not allowed/],
    ['MP_OPS_HOST in env (the probes need 0.0.0.0)', 'env: { MP_OPS_HOST: 127.0.0.1 }\n', /env: Property name of "MP_OPS_HOST" does not match/],
    [
      'MP_OPS_PORT in a component’s env (ops.port sets it)',
      'services: { reports: { env: { MP_OPS_PORT: 9000 } } }\n',
      /services\.reports\.env: Property name of "MP_OPS_PORT" does not match/,
    ],
    [
      'an OTEL_ variable the tracing values own',
      'gateway: { env: { OTEL_SERVICE_NAME: api } }\n',
      /gateway\.env: Property name of "OTEL_SERVICE_NAME" does not match/,
    ],
  ];
  it.each(refused)('refuses %s', (_what, yaml, message) => {
    expect(() => withValues(yaml)).toThrow(message);
  });

  it('accepts what the refusals are next to', () => {
    for (const ok of [
      'tracing: { endpoint: "http://c.observability.svc:4318", sampler: traceidratio, samplerArg: 0 }\n',
      'tracing: { endpoint: "https://otlp.example.com/v1", sampler: always_off }\n',
      // What `--set tracing.samplerArg=0.25` gives: helm converts integers only.
      'tracing: { endpoint: "http://c:4318", sampler: parentbased_traceidratio, samplerArg: "0.25" }\n',
      'tracing: { endpoint: "http://c:4318", sampler: traceidratio, samplerArg: 1 }\n',
    ])
      expect(() => withValues(ok)).not.toThrow();
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateK8s } from './support/k8s-schemas.js';
import { helmRenderBinary, objects, render, type K8sObject, type Rendered } from './support/helm.js';

// The chart's Ingress and the client address behind it (MP_TRUSTED_PROXIES, ADR 0075), and the
// first administrator's password, which comes from a Secret and never from a pod's log (ADR 0076).
let work: string;
const withValues = (yaml: string) => {
  const file = join(work, `values-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  return render({ files: [file] });
};
const deployment = (r: Rendered, component: string) => objects(r, 'Deployment').find((d) => d.metadata.labels!['app.kubernetes.io/component'] === component)!;
const envOf = (d: K8sObject): Record<string, { value?: string; valueFrom?: unknown }> =>
  Object.fromEntries(d.spec.template.spec.containers[0].env.map((e: { name: string }) => [e.name, e]));

const INGRESS = `
gateway:
  trustedProxies: [10.244.0.0/16, 'fd00:10:244::/56']
  service: { type: ClusterIP }
ingress:
  enabled: true
  className: nginx
  hosts: [api.example.com]
  sandboxHosts: [sandbox.example.com]
  tls: [{ secretName: mp-ingress-tls, hosts: [api.example.com, sandbox.example.com] }]
`;

beforeAll(() => {
  helmRenderBinary();
  work = mkdtempSync(join(tmpdir(), 'mp-chart-ingress-'));
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the optional Ingress', () => {
  it('is absent by default, and the gateway then trusts no proxy', () => {
    const r = render();
    expect(objects(r, 'Ingress')).toEqual([]);
    expect(envOf(deployment(r, 'gateway')).MP_TRUSTED_PROXIES).toBeUndefined();
  });

  it('routes the live and sandbox hosts to the gateway’s HTTPS ports over TLS, and sets MP_TRUSTED_PROXIES', () => {
    const r = withValues(INGRESS);
    const [ingress] = objects(r, 'Ingress');
    expect(validateK8s(ingress!)).toEqual([]);
    const gatewayService = objects(r, 'Service').find((s) => s.metadata.name === 'mp-monitoring-platform-gateway')!;
    expect(ingress!.metadata.name).toBe('mp-monitoring-platform-gateway');
    expect(ingress!.metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS' });
    expect(ingress!.spec.ingressClassName).toBe('nginx');
    expect(ingress!.spec.tls).toEqual([{ secretName: 'mp-ingress-tls', hosts: ['api.example.com', 'sandbox.example.com'] }]);
    const routes = ingress!.spec.rules.map((rule: any) => [rule.host, rule.http.paths[0].path, rule.http.paths[0].backend.service]);
    expect(routes).toEqual([
      ['api.example.com', '/', { name: gatewayService.metadata.name, port: { name: 'https' } }],
      ['sandbox.example.com', '/', { name: gatewayService.metadata.name, port: { name: 'https-sandbox' } }],
    ]);
    // Each backend port is a port of the gateway Service.
    expect(gatewayService.spec.ports.map((p: { name: string }) => p.name)).toEqual(['https', 'https-sandbox']);
    expect(envOf(deployment(r, 'gateway')).MP_TRUSTED_PROXIES).toEqual({ name: 'MP_TRUSTED_PROXIES', value: '10.244.0.0/16,fd00:10:244::/56' });
    // only the gateway reads it
    expect(envOf(deployment(r, 'identity')).MP_TRUSTED_PROXIES).toBeUndefined();
  });

  it('sets MP_TRUSTED_PROXIES without an Ingress too (a load balancer that forwards the client)', () => {
    const r = withValues('gateway: { trustedProxies: [192.0.2.10] }');
    expect(objects(r, 'Ingress')).toEqual([]);
    expect(envOf(deployment(r, 'gateway')).MP_TRUSTED_PROXIES.value).toBe('192.0.2.10');
  });

  it('refuses an Ingress without trusted proxies or without hosts, and values that are not addresses or host names', () => {
    expect(() => withValues('ingress: { enabled: true, hosts: [api.example.com] }')).toThrow(/ingress.enabled needs gateway.trustedProxies/);
    expect(() => withValues('gateway: { trustedProxies: [10.0.0.0/8] }\ningress: { enabled: true }')).toThrow(/needs at least one host/);
    expect(() => withValues('gateway: { trustedProxies: [ingress.local] }')).toThrow(/trustedProxies/);
    expect(() => withValues('ingress: { hosts: ["https://api.example.com"] }')).toThrow(/hosts/);
    expect(() => withValues('ingress: { tls: [{ hosts: [api.example.com] }] }')).toThrow(/secretName/);
  });
});

describe('the first administrator’s password', () => {
  it('comes from a Secret, always: identity gets MP_ADMIN_PASSWORD by reference, and an empty Secret name is refused', () => {
    const r = render();
    expect(envOf(deployment(r, 'identity')).MP_ADMIN_PASSWORD).toEqual({
      name: 'MP_ADMIN_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'mp-admin', key: 'admin-password' } },
    });
    expect(objects(r, 'Secret')).toEqual([]);
    expect(() => withValues("secrets: { adminPassword: { name: '', key: admin-password } }")).toThrow(/adminPassword/);
  });

  it('the NOTES name the Secret and the reset command, never a log to read a password from', () => {
    const { notes } = render();
    expect(notes).toContain('mp-admin (key admin-password');
    expect(notes).toContain('npm run operator -- reset-password --username <user>');
    expect(notes).not.toMatch(/logs deploy/);
  });
});

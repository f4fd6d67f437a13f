import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { helmRenderBinary, render } from './support/helm.js';

// The renderer the chart tests stand on (helm-render/main.go) gives what `helm template` gives for
// the built-ins the chart uses; a fixture chart (fixtures/builtins) exercises each of them.
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'builtins');

describe('helm-render, the stand-in for `helm template`', () => {
  let work: string;
  const values = (yaml: string) => {
    const file = join(work, `v${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, yaml);
    return file;
  };
  beforeAll(() => {
    helmRenderBinary();
    work = mkdtempSync(join(tmpdir(), 'mp-helm-render-'));
  }, 300_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('renders .Release, .Chart, .Capabilities, .Template, include, tpl, toYaml/toJson/fromYaml, .Files.Get and sprig as helm does', () => {
    const r = render({ chart: FIXTURE, release: 'rel', namespace: 'ns' });
    // The comment-only document and the disabled one are dropped, as helm drops empty documents.
    expect(r.manifests).toHaveLength(1);
    expect(r.manifests[0]!.object).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'rel-builtins', namespace: 'ns' },
      data: {
        chart: 'builtins-1.2.3-4.5',
        service: 'Helm',
        include: 'X=1',
        tpl: 'hello from rel',
        yaml: 'drop: 2\nkeep: 1\nlist:\n- a\n- b',
        json: '{"drop":2,"keep":1,"list":["a","b"]}',
        roundtrip: '1',
        kube: 'v1.31.0',
        hasHpa: 'true',
        hasCrd: 'false',
        missing: '',
        template: 'builtins/templates/configmap.yaml',
        sprig: '1,2,3',
        file: 'from the chart\n',
        noFile: '',
      },
    });
    expect(r.notes).toBe('rel 1.2.3\n');
  });

  it('coalesces values files over the defaults, a null deleting a default', () => {
    const r = render({ chart: FIXTURE, files: [values('nested: { drop: null }\nneeded: given\n')] });
    expect(r.manifests[0]!.object.data!.json).toBe('{"keep":1,"list":["a","b"]}');
    expect(r.manifests[1]!.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'needed' }, data: { value: 'given' } });
  });

  it('fails as helm fails: required with its message, a nil pointer in a template, --api-versions honoured', () => {
    expect(() => render({ chart: FIXTURE, files: [values('strict: true\n')] })).toThrow(/error calling required: strict needs \.Values\.needed/);
    expect(render({ chart: FIXTURE, apiVersions: ['monitoring.coreos.com/v1'] }).manifests[0]!.object.data!.hasCrd).toBe('true');
  });
});

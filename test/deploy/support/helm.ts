import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Renders the chart as `helm template` would, with helm-render (Go's text/template, sprig and
 * helm's own additions: see helm-render/main.go), built once per source version from Debian's
 * Go packages (scripts/ensure-infra.sh installs them), offline.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = join(HERE, '..', '..', '..');
export const CHART = join(REPO, 'deploy', 'helm', 'monitoring-platform');
const SOURCE = join(HERE, '..', 'helm-render', 'main.go');

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
  [k: string]: unknown;
}

export interface Rendered {
  manifests: { template: string; object: K8sObject }[];
  notes: string;
}

let binary: string | undefined;

/** The renderer's path, built first if this version of its source has not been (about 40 s cold). */
export function helmRenderBinary(): string {
  if (binary) return binary;
  const hash = createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 12);
  const dir = join(REPO, 'node_modules', '.cache', 'helm-render');
  const out = join(dir, `helm-render-${hash}`);
  if (!existsSync(out)) {
    mkdirSync(dir, { recursive: true });
    // Built beside its final name and renamed into place: test files build it at the same time.
    const temp = `${out}.${process.pid}`;
    execFileSync('go', ['build', '-o', temp, '.'], {
      cwd: dirname(SOURCE),
      env: { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOPROXY: 'off', GOFLAGS: '', GOCACHE: join(dir, 'go-cache') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    renameSync(temp, out);
  }
  binary = out;
  return out;
}

export interface RenderOptions {
  /** Chart folder; the platform's chart by default. */
  chart?: string;
  release?: string;
  namespace?: string;
  /** Values files (paths), applied in order over the chart's values.yaml, as `helm -f`. */
  files?: string[];
  /** Extra API versions the cluster serves, as `helm --api-versions`. */
  apiVersions?: string[];
}

/** The chart's output, or throws with helm-render's message when helm would refuse it. */
export function render(opts: RenderOptions = {}): Rendered {
  const args = ['-chart', opts.chart ?? CHART, '-name', opts.release ?? 'mp', '-namespace', opts.namespace ?? 'platform'];
  for (const f of opts.files ?? []) args.push('-f', f);
  for (const a of opts.apiVersions ?? []) args.push('-api-versions', a);
  const res = spawnSync(helmRenderBinary(), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(res.stderr.trim() || `helm-render exited ${res.status}`);
  return JSON.parse(res.stdout) as Rendered;
}

export const objects = (r: Rendered, kind?: string) => r.manifests.map((m) => m.object).filter((o) => !kind || o.kind === kind);

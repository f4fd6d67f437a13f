import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import { parseDockerignore, type ContextFilter } from './dockerignore.js';

/**
 * Replays a Dockerfile without a Docker engine: each stage gets its own folder standing in for
 * its root filesystem; COPY copies from the build context (filtered by .dockerignore) or from an
 * earlier stage's folder; RUN runs the stage's shell command with /bin/sh in the folder of its
 * WORKDIR, with the stage's ENV and HOME inside the stage (so npm's cache and config are the
 * stage's own, as in a container). The base image's own files are not there: RUN uses this
 * machine's node and npm. RUN commands must therefore use paths relative to WORKDIR; the
 * Dockerfile says so. Instructions this does not know fail the replay rather than pass silently.
 */
export interface Stage {
  name: string;
  base: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string;
  cmd: string[];
  volumes: string[];
  expose: string[];
}

interface Instruction {
  op: string;
  args: string;
  line: number;
}

export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let line = lines[i]!;
    if (/^\s*#/.test(line) || !line.trim()) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      line = line.replace(/\\\s*$/, ' ');
      // Comment lines inside a continued instruction are dropped, as Docker does.
      do i++;
      while (i < lines.length && /^\s*#/.test(lines[i]!));
      line += lines[i] ?? '';
    }
    const m = line.trim().match(/^(\w+)\s+(.*)$/s);
    if (!m) throw new Error(`Dockerfile line ${start}: cannot parse "${line}"`);
    out.push({ op: m[1]!.toUpperCase(), args: m[2]!.trim(), line: start });
  }
  return out;
}

const substitute = (s: string, vars: Record<string, string>) =>
  s.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => vars[(a ?? b)!] ?? '');

const words = (s: string) => s.match(/"[^"]*"|\S+/g)!.map((w) => w.replace(/^"|"$/g, ''));
const jsonOrWords = (s: string): string[] => (s.startsWith('[') ? (JSON.parse(s) as string[]) : words(s));

/** Every file and folder of the context that .dockerignore lets through, as relative paths. */
function contextEntries(context: string, keep: ContextFilter, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(context, rel))) {
    const path = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(context, path));
    // A folder is walked even when excluded itself: an exception (`!`) may re-include inside it.
    if (st.isDirectory()) {
      const inner = contextEntries(context, keep, path);
      if (keep(path) || inner.length) out.push(path, ...inner);
    } else if (keep(path)) out.push(path);
  }
  return out;
}

export interface ReplayOptions {
  dockerfile: string;
  context: string;
  /** Empty folder that receives one subfolder per stage. */
  outDir: string;
  buildArgs?: Record<string, string>;
  log?: (line: string) => void;
}

export function replayDockerfile(opts: ReplayOptions): { stages: Stage[]; final: Stage } {
  const instructions = parseDockerfile(readFileSync(opts.dockerfile, 'utf8'));
  const ignoreFile = join(opts.context, '.dockerignore');
  const keep = parseDockerignore(existsSync(ignoreFile) ? readFileSync(ignoreFile, 'utf8') : '');
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  let stage: Stage | undefined;
  let stageArgs: Record<string, string> = {};
  const inStage = (s: Stage, p: string) => join(s.root, posix.isAbsolute(p) ? p : posix.join(s.workdir, p));
  const vars = () => ({ ...stageArgs, ...(stage?.env ?? {}) });

  for (const { op, args, line } of instructions) {
    const fail = (why: string): never => {
      throw new Error(`Dockerfile line ${line} (${op}): ${why}`);
    };
    if (op === 'ARG') {
      const [name, def] = args.split('=', 2) as [string, string | undefined];
      const value = opts.buildArgs?.[name] ?? (def !== undefined ? substitute(def, vars()) : (globalArgs[name] ?? ''));
      if (stage) stageArgs[name] = value;
      else globalArgs[name] = value;
      continue;
    }
    if (op === 'FROM') {
      const [image, as, name] = words(substitute(args, globalArgs));
      if (as && as.toUpperCase() !== 'AS') fail('expected FROM <image> AS <name>');
      const parent = stages.find((s) => s.name === image);
      const root = join(opts.outDir, `${stages.length}-${name ?? 'stage'}`);
      mkdirSync(root, { recursive: true });
      if (parent) cpSync(parent.root, root, { recursive: true, verbatimSymlinks: true });
      stage = {
        name: name ?? String(stages.length),
        base: parent?.base ?? image!,
        root,
        workdir: parent?.workdir ?? '/',
        env: { ...(parent?.env ?? {}) },
        user: parent?.user ?? 'root',
        cmd: parent?.cmd ?? [],
        volumes: [...(parent?.volumes ?? [])],
        expose: [...(parent?.expose ?? [])],
      };
      stages.push(stage);
      stageArgs = {};
      continue;
    }
    if (!stage) fail('instruction before the first FROM');
    const s = stage!;
    switch (op) {
      case 'WORKDIR':
        s.workdir = posix.resolve(s.workdir, substitute(args, vars()));
        mkdirSync(inStage(s, s.workdir), { recursive: true });
        break;
      case 'ENV': {
        for (const pair of words(args)) {
          const [k, v] = pair.split('=', 2) as [string, string | undefined];
          if (v === undefined) fail('use ENV KEY=value');
          s.env[k] = substitute(v!, vars());
        }
        break;
      }
      case 'USER':
        s.user = substitute(args, vars());
        break;
      case 'CMD':
        s.cmd = jsonOrWords(args);
        break;
      case 'VOLUME':
        s.volumes.push(...jsonOrWords(args));
        break;
      case 'EXPOSE':
        s.expose.push(...words(args));
        break;
      case 'COPY': {
        const parts = words(substitute(args, vars()));
        const flags = Object.fromEntries(parts.filter((p) => p.startsWith('--')).map((p) => p.slice(2).split('=', 2) as [string, string]));
        const paths = parts.filter((p) => !p.startsWith('--'));
        const dest = paths.pop()!;
        for (const flag of Object.keys(flags)) if (flag !== 'from' && flag !== 'chown') fail(`unknown flag --${flag}`);
        const from = flags.from ? stages.find((x) => x.name === flags.from) : undefined;
        if (flags.from && !from) fail(`no stage named ${flags.from}`);
        for (const src of paths) {
          if (/[*?[]/.test(src)) fail('wildcards are not replayed');
          const srcPath = from ? inStage(from, src) : join(opts.context, src);
          if (!from && src !== '.' && !keep(posix.normalize(src))) fail(`${src} is excluded by .dockerignore`);
          if (!existsSync(srcPath)) fail(`${src} does not exist`);
          const isDir = statSync(srcPath).isDirectory();
          const target = isDir || dest.endsWith('/') ? inStage(s, isDir ? dest : posix.join(dest, basename(src))) : inStage(s, dest);
          mkdirSync(isDir ? target : dirname(target), { recursive: true });
          if (!isDir) cpSync(srcPath, target, { verbatimSymlinks: true });
          else if (from) cpSync(srcPath, target, { recursive: true, verbatimSymlinks: true });
          else {
            const base = posix.normalize(src) === '.' ? '' : `${posix.normalize(src)}/`;
            for (const rel of contextEntries(srcPath, (p) => keep(base + p))) {
              const at = join(target, rel);
              if (lstatSync(join(srcPath, rel)).isDirectory()) mkdirSync(at, { recursive: true });
              else cpSync(join(srcPath, rel), at, { verbatimSymlinks: true });
            }
          }
          if (flags.chown) {
            const [uid, gid] = flags.chown.split(':').map(Number) as [number, number];
            if (Number.isNaN(uid)) fail('--chown needs numeric ids here');
            lchownSync(target, uid, gid ?? uid);
          }
        }
        break;
      }
      case 'RUN': {
        if (args.startsWith('[')) fail('exec-form RUN is not replayed');
        if (s.user !== 'root' && s.user !== '0') fail('RUN as a non-root USER is not replayed');
        const cwd = inStage(s, s.workdir);
        const home = join(s.root, 'root');
        mkdirSync(home, { recursive: true });
        opts.log?.(`[${s.name}] RUN ${args}`);
        const res = spawnSync('/bin/sh', ['-c', args], {
          cwd,
          env: { PATH: process.env.PATH!, HOME: home, ...s.env },
          stdio: ['ignore', 'pipe', 'pipe'],
          maxBuffer: 64 * 1024 * 1024,
        });
        if (res.status !== 0) fail(`exit ${res.status}\n${res.stdout}\n${res.stderr}`);
        break;
      }
      case 'LABEL':
        break;
      default:
        fail('instruction not replayed');
    }
  }
  if (!stage) throw new Error('Dockerfile has no FROM');
  for (const s of stages) chmodSync(s.root, 0o755);
  return { stages, final: stage };
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/process.js';
import { parseDockerignore } from './support/dockerignore.js';

// The image test's context filter reads .dockerignore as BuildKit does; these pin the rules it
// relies on, then the project's own file against the paths a builder's checkout holds.
describe('.dockerignore as BuildKit reads it', () => {
  it('matches a pattern against a path and each of its parents; ** crosses folders, * does not', () => {
    const keep = parseDockerignore('**/node_modules\n*.log\ndocs\nsecret?.txt\n');
    expect(keep('node_modules/x/index.js')).toBe(false);
    expect(keep('packages/db/node_modules/pg/index.js')).toBe(false);
    expect(keep('build.log')).toBe(false);
    expect(keep('packages/build.log')).toBe(true);
    expect(keep('docs/deploy.md')).toBe(false);
    expect(keep('packages/docs/a.md')).toBe(true);
    expect(keep('secret1.txt')).toBe(false);
    expect(keep('secret12.txt')).toBe(true);
  });

  it('lets the last matching pattern decide, so ! re-includes', () => {
    const keep = parseDockerignore('# comment\n*\n!package.json\n!packages/\npackages/**/test\n/scripts/\n');
    expect(keep('README.md')).toBe(false);
    expect(keep('package.json')).toBe(true);
    expect(keep('packages/kit/src/index.ts')).toBe(true);
    expect(keep('packages/kit/test/a.test.ts')).toBe(false);
    expect(keep('scripts/start.mjs')).toBe(false);
  });

  it('keeps the builder’s secrets, version control and build output out of this project’s context', () => {
    const keep = parseDockerignore(readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8'));
    const out = [
      '.data/secrets.key',
      '.git/HEAD',
      '.env',
      '.env.production',
      'keys/gateway.key',
      'x/y/server.pem',
      'services/gateway/dist/main.js',
      'node_modules/jest/index.js',
      'packages/kit/.turbo/log',
      'test/e2e/a.test.ts',
      'bench/x.mjs',
      '.npmrc',
      'packages/contracts/src/gen/a.ts',
    ];
    const inside = [
      'package.json',
      'package-lock.json',
      'turbo.json',
      'tsconfig.base.json',
      'proto/identity.proto',
      'services/gateway/src/main.ts',
      'packages/kit/package.json',
      'scripts/start.mjs',
      'deploy/docker/Dockerfile',
    ];
    expect(out.filter(keep)).toEqual([]);
    expect(inside.filter((p) => !keep(p))).toEqual([]);
  });
});

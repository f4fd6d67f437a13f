import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../support/process.js';

// The Node.js floor the project states is the one its installed packages need (the highest
// `engines.node` floor in package-lock.json), and CI's check refuses a Node.js below it.
describe('the Node.js floor', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, ['scripts/node-floor.mjs', ...args], { cwd: REPO_ROOT, encoding: 'utf8' });

  it('package.json and the README state the floor of the installed packages', () => {
    const r = run('--stated');
    expect({ code: r.status, err: r.stderr }).toEqual({ code: 0, err: '' });
    expect(r.stdout).toBe('node-floor: Node.js >=22.15.0 (stated in package.json and README.md)\n');
  });

  it('CI’s check passes on a Node.js at the floor or above and names the floor below it', () => {
    const r = run();
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    if (major > 22 || (major === 22 && minor >= 15)) expect(r.status).toBe(0);
    else {
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`^node-floor: Node.js ${process.version} is below the floor 22.15.0: \\d+ packages refuse it .*run CI on Node.js 22.15.0 or later.\\n$`),
      );
    }
  });
});

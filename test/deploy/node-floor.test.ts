import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../support/process.js';

// The Node.js floor the project states is the one its installed packages need (the highest
// `engines.node` floor in package-lock.json), and CI's check refuses a Node.js below it.
describe('the Node.js floor', () => {
  const run = (nodeArgs: string[], ...args: string[]) =>
    spawnSync(process.execPath, [...nodeArgs, 'scripts/node-floor.mjs', ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
  // The script reads the running version from process.version: a preload stands in an older Node.
  const asNode = (version: string) => ['--import', `data:text/javascript,Object.defineProperty(process,"version",{value:"${version}"})`];

  it('package.json and the README state the floor of the installed packages', () => {
    const r = run([], '--stated');
    expect({ code: r.status, err: r.stderr }).toEqual({ code: 0, err: '' });
    expect(r.stdout).toBe('node-floor: Node.js >=20.19.0 (stated in package.json and README.md)\n');
  });

  it('CI’s check passes on the Node.js running the tests (the machines’ Node.js meets the floor)', () => {
    const r = run([]);
    expect({ code: r.status, err: r.stderr }).toEqual({ code: 0, err: '' });
    expect(r.stdout).toBe(`node-floor: Node.js >=20.19.0 (stated in package.json and README.md); running ${process.version}\n`);
  });

  it('CI’s check refuses a Node.js below the floor and names the floor', () => {
    const r = run(asNode('v20.18.3'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^node-floor: Node.js v20\.18\.3 is below the floor 20\.19\.0: \d+ packages refuse it .*run CI on Node\.js 20\.19\.0 or later\.\n$/,
    );
  });
});

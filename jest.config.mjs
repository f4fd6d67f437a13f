// One jest run over every workspace. ESM throughout (see docs/adr/0002-esm-and-jest.md):
// test files are TypeScript compiled by swc to ES modules; workspace packages are
// imported from their built dist/ (turbo builds them before the tests run).
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/{packages,services,apps,test}/**/test/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 60000,
  // The suite is I/O bound (PostgreSQL, NATS, HTTPS); three workers keep 2 cores busy.
  maxWorkers: process.env.JEST_MAX_WORKERS ?? 3,
  // Under --experimental-vm-modules a worker keeps every file's module graph: its heap grows by
  // 60–80 MB a file (--logHeapUsage) and in-process platforms share it. A worker over this is
  // replaced after the file it ran, so late files do not pay collections of gigabytes (the
  // data-imports test collects the whole heap to measure it; see its sampler).
  workerIdleMemoryLimit: '700MB',
  // rate-limiter-flexible's in-memory store keeps un-unref'd expiry timers (up to an hour for the
  // reports limit); they must not hold a finished run open. Servers and processes are still
  // stopped by every test file.
  forceExit: true,
};

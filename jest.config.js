// Jest runs in ESM mode (NODE_OPTIONS=--experimental-vm-modules, set by scripts/run-tests.ts):
// @middy/* is ESM-only. One project per test layer.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  setupFiles: ['<rootDir>/test/support/env.ts'],
};

const layers = [
  { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
  { ...common, displayName: 'handler', testMatch: ['<rootDir>/test/handler/**/*.test.ts'] },
  {
    ...common,
    displayName: 'integration',
    testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
    globalSetup: '<rootDir>/test/support/dynamodb-global-setup.mjs',
    globalTeardown: '<rootDir>/test/support/dynamodb-global-teardown.mjs',
  },
  { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
  { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
];

/** Test files with a line `// @dateSensitive` in their header: they run again at each of TEST_INSTANTS. */
function dateSensitiveFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return dateSensitiveFiles(path);
    return entry.name.endsWith('.test.ts') && /^\/\/ @dateSensitive\b/m.test(readFileSync(path, 'utf8').slice(0, 4000)) ? [path] : [];
  });
}

/**
 * TEST_INSTANTS (comma-separated ISO 8601 instants, set by `npm test`): one more project per instant
 * with the date-sensitive unit, handler and integration files, their clock at that instant
 * (test/support/at-instant.ts). They share the integration project's DynamoDB Local.
 */
const instants = (process.env.TEST_INSTANTS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const sensitive = instants.length > 0 ? ['unit', 'handler', 'integration'].flatMap((l) => dateSensitiveFiles(join('test', l))) : [];
const atInstants = instants.map((instant) => ({
  ...common,
  globalSetup: '<rootDir>/test/support/dynamodb-global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/dynamodb-global-teardown.mjs',
  displayName: `at ${instant}`,
  testMatch: sensitive.map((file) => `<rootDir>/${file}`),
  setupFiles: [...common.setupFiles, '<rootDir>/test/support/at-instant.ts'],
  globals: { TEST_INSTANT: instant },
}));

/** @type {import('jest').Config} */
export default {
  // Integration and e2e tests start processes (DynamoDB Local, the commands, the server): give
  // them room on a loaded 2-core CI machine.
  testTimeout: 30_000,
  // A worker runs hundreds of ESM files and its heap only grows (one reached V8's 4 GB limit in a
  // full run): one over this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1536MB',
  testSequencer: '<rootDir>/test/support/sequencer.mjs',
  projects: [...layers, ...atInstants],
};

// Jest runs in ESM mode (NODE_OPTIONS=--experimental-vm-modules, set by scripts/run-tests.ts):
// @middy/* is ESM-only. One project per test layer.
const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  setupFiles: ['<rootDir>/test/support/env.ts'],
};

/** @type {import('jest').Config} */
export default {
  // Integration and e2e tests start processes (DynamoDB Local, the commands, the server): give
  // them room on a loaded 2-core CI machine.
  testTimeout: 30_000,
  projects: [
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
  ],
};

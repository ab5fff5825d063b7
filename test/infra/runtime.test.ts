import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { resourcesOfType, synthesize } from './helpers.js';

/**
 * The tested runtime is the deployed one: .node-version (the Node .ci/run installs and runs the
 * suite on) has the major of every function's Lambda runtime, in both stages; in CI the suite
 * really runs on it.
 */
const pinned = readFileSync(new URL('../../.node-version', import.meta.url), 'utf8').trim();
const pinnedMajor = Number(/^(\d+)\.\d+\.\d+$/.exec(pinned)?.[1]);
// Skips esbuild: the runtimes are in the template without the bundles.
const { templates } = synthesize({ 'aws:cdk:bundling-stacks': [] });

describe('the Node that CI runs is the Node that Lambda runs', () => {
  it('.node-version is an exact version', () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.each(['sandbox', 'prod'] as const)('every function of %s runs nodejs<major of .node-version>.x', (stage) => {
    const runtimes = new Set(Object.values(resourcesOfType(templates[stage], 'AWS::Lambda::Function')).map((f) => f.Properties?.Runtime));
    expect([...runtimes]).toEqual([`nodejs${pinnedMajor}.x`]);
  });

  it('in CI, the suite runs on that major', () => {
    if (process.env.CI !== 'true') return;
    expect(Number(process.versions.node.split('.')[0])).toBe(pinnedMajor);
  });
});

describe('the deployed stages keep the real clock', () => {
  it.each(['sandbox', 'prod'] as const)('no function of %s is given CLOCK_AT (its config would refuse it in Lambda)', (stage) => {
    for (const fn of Object.values(resourcesOfType(templates[stage], 'AWS::Lambda::Function'))) {
      const variables = (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      expect(Object.keys(variables).filter((name) => name.startsWith('CLOCK_AT'))).toEqual([]);
    }
  });
});

// @dateIndependent: reads the test files' text, no clock.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * The `@dateSensitive` marking is checked, not remembered (CONTRIBUTING.md, "Time"): a unit,
 * handler or integration file that reads the clock, itself or through a test/support module, says
 * in its first lines either `// @dateSensitive` or `// @dateIndependent: <why its outcome cannot
 * change with the date>`.
 */
const READS_THE_CLOCK = /\b(testNow|testToday|testClock|processClock|realClock|clockEnv)\b|new Date\(\)|\bCLOCK_AT\b|standardwebhooks/;
/** A line of its own, as jest.config.js reads `@dateSensitive`. */
const MARKED = /^\/\/ @date(Sensitive\b|Independent: \S)/m;
/** As much of a file as jest.config.js reads for the marking. */
const HEAD = 4000;
/** The setup files every project runs: they set the clock, they are not a test's reading of it. */
const SETUP = new Set(['test/support/env.ts', 'test/support/at-instant.ts']);

/** The files of `files` (path -> text) that read the clock themselves or through the relative modules they import. */
export function clockReaders(files: ReadonlyMap<string, string>): Set<string> {
  const imports = new Map<string, string[]>();
  for (const [path, text] of files) {
    const targets = [...text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].map((m) => normalize(join(dirname(path), `${m[1]!}.ts`)));
    imports.set(path, targets);
  }
  const readers = new Set([...files].filter(([path, text]) => !SETUP.has(path) && READS_THE_CLOCK.test(text)).map(([path]) => path));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [path, targets] of imports) {
      if (readers.has(path) || SETUP.has(path) || !targets.some((t) => readers.has(t))) continue;
      readers.add(path);
      grew = true;
    }
  }
  return readers;
}

/** Test files of the layers the fixed instants rerun whose clock reading carries no marking. */
export function unmarked(files: ReadonlyMap<string, string>): string[] {
  const rerun = /^test\/(unit|handler|integration)\/.*\.test\.ts$/;
  return [...clockReaders(files)].filter((path) => rerun.test(path) && !MARKED.test(files.get(path)!.slice(0, HEAD))).sort();
}

function sources(dir: string): [string, string][] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): [string, string][] => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [[path, readFileSync(path, 'utf8')]] : [];
  });
}

describe('the @dateSensitive marking', () => {
  it('every unit, handler and integration file that reads the clock says @dateSensitive or @dateIndependent: why', () => {
    expect(unmarked(new Map(sources('test')))).toEqual([]);
  });

  it('finds a file that reads the clock through a support module, and one that signs webhooks; not one on a fixed instant', () => {
    const files = new Map([
      ['test/support/clock.ts', 'export const testNow = () => processClock();'],
      ['test/support/legs.ts', "import { testNow } from './clock.js';"],
      ['test/integration/a.test.ts', "import { legs } from '../support/legs.js';"],
      ['test/unit/b.test.ts', "import { Webhook } from 'standardwebhooks';"],
      ['test/unit/c.test.ts', "const clock = fixedClock('2028-02-29T12:00:00Z');"],
      ['test/unit/d.test.ts', "// @dateIndependent: only durations\nimport { testNow } from '../support/clock.js';"],
      ['test/e2e/e.test.ts', "import { testNow } from '../support/clock.js';"],
    ]);
    expect(unmarked(files)).toEqual(['test/integration/a.test.ts', 'test/unit/b.test.ts']);
  });
});

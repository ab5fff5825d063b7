import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { renderMarkdown } from '../../../bench/markdown.js';
import type { BenchResult } from '../../../bench/run.js';
import * as limits from '../../../src/listing/limits.js';
import * as timeBudget from '../../../src/time-budget.js';

/**
 * The figures the docs cite from the benchmark's committed results (docs/bench-results/) and from
 * the code's constants are the ones those hold. A figure is marked in the markdown source as
 * `42.0<!-- figure FILE PATH [/DIVISOR] -->`: FILE is a results file (`legs-20000.json`, under
 * docs/bench-results/) or a module (`src/time-budget.ts`, `src/listing/limits.ts`), PATH a dotted path
 * into it (array indexes as numbers); the number, commas aside, must equal the value (divided by
 * DIVISOR) rounded to the decimals the docs show. The generated results block must be what
 * `npm run bench -- --markdown docs/bench-results/legs-*.json` renders.
 */
const RESULTS_DIR = 'docs/bench-results';
const DOCS = ['docs/performance.md', 'docs/faults.md', 'docs/api.md', 'README.md'];
const MODULES: Record<string, unknown> = { 'src/time-budget.ts': timeBudget, 'src/listing/limits.ts': limits };
const FIGURE = /(?<![\d.])(\d[\d,]*(?:\.\d+)?)<!-- figure (\S+) (\S+)(?: \/(\S+))? -->/g;
const GENERATED_START = '<!-- generated: npm run bench -- --markdown docs/bench-results/legs-*.json -->\n';
const GENERATED_END = '\n<!-- end of generated -->';

const files = new Map<string, unknown>();
function source(file: string): unknown {
  if (file in MODULES) return MODULES[file];
  let data = files.get(file);
  if (data === undefined) {
    data = JSON.parse(readFileSync(join(RESULTS_DIR, file), 'utf8')) as unknown;
    files.set(file, data);
  }
  return data;
}

function valueAt(root: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), root);
}

interface Figure {
  cited: string;
  file: string;
  path: string;
  expected: number | undefined;
}

/** Every marked figure of `text`, with the value its source holds, rounded as cited. */
function figures(text: string): Figure[] {
  return [...text.matchAll(FIGURE)].map(([, cited = '', file = '', path = '', divisor]) => {
    const raw = valueAt(source(file), path);
    const digits = cited.includes('.') ? cited.length - cited.indexOf('.') - 1 : 0;
    const expected = typeof raw === 'number' ? Number((raw / (divisor === undefined ? 1 : Number(divisor))).toFixed(digits)) : undefined;
    return { cited, file, path, expected };
  });
}

/** The figures of `text` that differ from their source: `cited -> expected (file path)`. */
function drifted(text: string): string[] {
  return figures(text)
    .filter((f) => f.expected === undefined || Number(f.cited.replace(/,/g, '')) !== f.expected)
    .map((f) => `${f.cited} -> ${String(f.expected)} (${f.file} ${f.path})`);
}

function committedResults(): BenchResult[] {
  return readdirSync(RESULTS_DIR)
    .filter((name) => /^legs-\d+\.json$/.test(name))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(RESULTS_DIR, name), 'utf8')) as BenchResult);
}

function generatedBlock(text: string): string | undefined {
  const start = text.indexOf(GENERATED_START);
  const end = text.indexOf(GENERATED_END, start);
  return start < 0 || end < 0 ? undefined : text.slice(start + GENERATED_START.length, end);
}

describe('figures the docs cite', () => {
  it.each(DOCS)('%s: every marked figure is what its source holds', (doc) => {
    expect(drifted(readFileSync(doc, 'utf8'))).toEqual([]);
  });

  it('docs/performance.md cites the committed results and the code, and the check sees a drift', () => {
    const text = readFileSync('docs/performance.md', 'utf8');
    const found = figures(text);
    expect(found.length).toBeGreaterThanOrEqual(30);
    expect(new Set(found.map((f) => f.file))).toEqual(
      new Set(['legs-20000.json', 'legs-50000.json', 'legs-100000.json', 'sdk-path/legs-20000-lean.json', 'sdk-path/legs-20000-sdk.json', 'src/time-budget.ts', 'src/listing/limits.ts']),
    );
    // Each figure, one at a time, changed in its last digit: the check names it.
    for (const f of found) {
      const changed = f.cited.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
      const at = text.indexOf(`${f.cited}<!-- figure ${f.file} ${f.path}`);
      expect(drifted(text.slice(0, at) + changed + text.slice(at + f.cited.length))).toHaveLength(1);
    }
  });

  it('the generated results block is what the committed results render', () => {
    const block = generatedBlock(readFileSync('docs/performance.md', 'utf8'));
    expect(block).toBeDefined();
    expect(block).toBe(renderMarkdown(committedResults()).replace(/\n+$/, ''));
  });
});

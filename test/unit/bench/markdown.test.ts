import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { renderMarkdown, targetsTable } from '../../../bench/markdown.js';
import type { BenchResult } from '../../../bench/run.js';

const result = JSON.parse(readFileSync('docs/bench-results/legs-20000.json', 'utf8')) as BenchResult;

describe('benchmark markdown', () => {
  it('has one row per query, with its total and its measured read units, and the mean row', () => {
    const md = renderMarkdown([result]);
    for (const q of result.queries) {
      const row = md.split('\n').find((l) => l.startsWith(`| ${q.name} |`));
      expect(row).toBeDefined();
      const cells = row!.split('|').map((c) => c.trim());
      expect(cells[2]).toBe(String(q.total));
      // Rendered to one decimal: within half a tenth, the half included (192.75 shows as 192.8).
      expect(Math.abs(Number(cells[3]!.replace(/,/g, '')) - q.cold.readUnits)).toBeLessThanOrEqual(0.05 + 1e-9);
    }
    expect(md).toContain('| **all** (mean per request) |');
  });

  it('marks a target that does not hold', () => {
    const failing: BenchResult = { ...result, targets: result.targets.map((t, i) => (i === 0 ? { ...t, holds: false } : t)) };
    const table = targetsTable([result, failing]);
    const firstRow = table.split('\n')[2]!;
    expect(firstRow).toMatch(/holds \| .*\*\*fails\*\* \|$/);
    expect(table.split('\n')).toHaveLength(2 + result.targets.length);
  });
});

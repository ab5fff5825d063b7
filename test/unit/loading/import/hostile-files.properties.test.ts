import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { parseImportText, readImportStream, type ImportOptions, type ImportResult } from '../../../../src/loading/import/index.js';
import { fcParams } from '../../../support/fast-check.js';
import { hostileFile } from '../../../support/hostile-files.js';
import { TODAY, record } from '../../../support/import-records.js';

/**
 * Hostile files (duplicates, nesting, huge lines, huge numbers of fields, bytes that are not UTF-8,
 * huge numbers): reading one never throws, refuses it, keeps a bounded report, and costs work that
 * grows at most linearly with the file (CPU time and result size at n and 4n, in one run).
 */

const LIMITS = { maxLineChars: 5000, maxErrorsKept: 20, maxFileRecords: 60 };
const options: ImportOptions = { today: TODAY, limits: LIMITS };
function chunks(bytes: Buffer, cuts: readonly number[]): Readable {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let start = 0;
  for (const p of points) {
    if (p > start) parts.push(bytes.subarray(start, p));
    start = Math.max(start, p);
  }
  if (start < bytes.length) parts.push(bytes.subarray(start));
  return Readable.from(parts);
}

describe('hostile files', () => {
  it('never throw, are refused, keep a bounded report, and read the same as a stream cut anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(hostileFile, fc.array(fc.nat(), { maxLength: 6 }), async (bytes, cuts) => {
        const streamed = await readImportStream(chunks(bytes, cuts), options);
        const whole = parseImportText(new TextDecoder().decode(bytes), options);
        expect(streamed).toEqual(whole);
        expect(whole.fatal || whole.invalidRecords > 0).toBe(true);
        expect(whole.errors.length).toBeLessThanOrEqual(LIMITS.maxErrorsKept);
        expect(whole.errors.length).toBeGreaterThan(0);
        for (const e of whole.errors) expect(e.message.length).toBeLessThan(400);
        expect(new Set(whole.legs.map((l) => l.id)).size).toBe(whole.legs.length);
      }),
      fcParams(60),
    );
  });
});

/** CPU time (user + system, microseconds) of `work`, the least of three runs. */
function cpu(work: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    best = Math.min(best, used.user + used.system);
  }
  return best;
}

const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('\n');

/** Each kind of hostile file at size n (the work is measured at n and 4n). */
const KINDS: [string, number, (n: number) => string][] = [
  ['one id on every line, no other field', 1500, (n) => lines(n, () => '{"id":"X"}')],
  ['one id on every line, valid records', 600, (n) => lines(n, () => JSON.stringify(record({ id: 'X' })))],
  ['a line of n [', 200_000, (n) => '\n'.concat('['.repeat(n))],
  ['a record with a value nested n deep', 100_000, (n) => `{"id":"D","x":${'['.repeat(n)}${']'.repeat(n)}}`],
  ['a record with a text of n characters', 100_000, (n) => JSON.stringify(record({ depCityName: 'x'.repeat(n) }))],
  ['a record with n fields', 5000, (n) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i])))],
  ['a field name of n characters', 100_000, (n) => JSON.stringify({ ...record(), ['y'.repeat(n)]: 1 })],
  ['n lines with bytes that are not UTF-8', 600, (n) => lines(n, (i) => JSON.stringify(record({ id: `U${i}`, depCityName: 'Z\ufffdrich' })))],
  ['n distinct valid records', 600, (n) => lines(n, (i) => JSON.stringify(record({ id: `R${i}` })))],
];

describe('work grows at most linearly', () => {
  it.each(KINDS)('%s: 4 times the file costs at most 8 times the CPU time and 4.5 times the result', (_name, n, make) => {
    const small = make(n);
    const large = make(4 * n);
    let result: ImportResult | undefined;
    const read = (text: string) => () => (result = parseImportText(text, { today: TODAY }));
    read(small)(); // warm up
    const cpuSmall = cpu(read(small));
    const sizeSmall = JSON.stringify(result).length;
    const cpuLarge = cpu(read(large));
    const sizeLarge = JSON.stringify(result).length;
    // Below 5 ms the clock's grain and the collector dominate: the small file counts as 5 ms.
    expect(cpuLarge / Math.max(cpuSmall, 5000)).toBeLessThan(8);
    expect(sizeLarge / sizeSmall).toBeLessThan(4.5);
  });
});

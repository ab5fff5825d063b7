import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_LINE_CHARS, parseImportText, readImportStream, validateImportRecord } from '../../../../src/loading/import/index.js';
import { EMPTY_LEG_FIELDS, toApiRecord } from '../../../../src/kernel/model.js';
import { DEFAULT_SOURCE } from '../../../../src/kernel/source.js';
import { toStorageItem } from '../../../../src/kernel/leg-item.js';

/** The import format's `source` field, and reading a file as a stream of bytes. */
const TODAY = '2026-11-21';
const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/${name}`, import.meta.url), 'utf8');

const BASE = {
  id: 'LEG-1',
  startDate: '2026-12-10',
  endDate: '2026-12-12',
  depCityName: 'Paris',
  depTimezone: 'Europe/Paris',
  arrCityName: 'Geneva',
};
const rec = (patch: Record<string, unknown> = {}) => ({ ...BASE, ...patch });

describe('source', () => {
  it('defaults to "default" and is kept when given', () => {
    const plain = validateImportRecord(rec(), { today: TODAY });
    const named = validateImportRecord(rec({ source: 'acme-jets' }), { today: TODAY });
    expect(plain.ok && plain.leg.source).toBe(DEFAULT_SOURCE);
    expect(named.ok && named.leg.source).toBe('acme-jets');
  });

  it.each<[unknown, string]>([
    ['', '""'],
    ['Acme', '"Acme"'],
    ['-acme', '"-acme"'],
    ['acme jets', '"acme jets"'],
    ['a'.repeat(41), `"${'a'.repeat(41)}"`],
    [null, 'null'],
    [7, '7'],
  ])('refuses source %p with the rule', (source, shown) => {
    const result = validateImportRecord(rec({ source }), { today: TODAY });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const rule = typeof source === 'string' ? 'must be a source slug: 1-40 of a-z 0-9 -, starting with a letter or digit' : 'must be a string';
    expect(result.issues).toEqual([{ field: 'source', rule: `${rule}, got ${shown}` }]);
  });

  it('accepts every slug of 1-40 of a-z 0-9 - that starts with a letter or digit', () => {
    const slug = fc
      .tuple(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), fc.string({ unit: fc.constantFrom(...'abcxyz0189-'), maxLength: 39 }))
      .map(([first, rest]) => first + rest);
    fc.assert(
      fc.property(slug, (source) => {
        const result = validateImportRecord(rec({ source }), { today: TODAY });
        return result.ok && result.leg.source === source;
      }),
    );
  });

  it('with a source for the whole file: fills it in, and refuses a record that names another', () => {
    const text = [rec({ id: 'A' }), rec({ id: 'B', source: 'acme' }), rec({ id: 'C', source: 'other' })].map((r) => JSON.stringify(r)).join('\n');
    const result = parseImportText(text, { today: TODAY, source: 'acme' });
    expect(result.legs.map((l) => [l.id, l.source])).toEqual([
      ['A', 'acme'],
      ['B', 'acme'],
    ]);
    expect(result.errors.map((e) => e.message)).toEqual(['line 3: source: must be "acme", the source this file is loaded for, got "other"']);
  });

  it('is stored with the leg and never shown by the API', () => {
    const result = validateImportRecord(rec({ source: 'acme', listed: false, blocked: true, depTimezone: 'Europe/Paris' }), { today: TODAY });
    if (!result.ok) throw new Error('expected a valid record');
    const item = toStorageItem(result.leg);
    expect(item.source).toBe('acme');
    const api = toApiRecord(item);
    expect(Object.keys(api)).toEqual([...EMPTY_LEG_FIELDS]);
    for (const internal of ['source', 'listed', 'blocked', 'depTimezone']) expect(api).not.toHaveProperty(internal);
  });
});

/** Splits a text's UTF-8 bytes into chunks at the given cut points (any byte, even inside a character). */
function chunksOf(text: string, cuts: readonly number[]): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const p of points) {
    if (p > start) chunks.push(bytes.subarray(start, p));
    start = Math.max(start, p);
  }
  if (start < bytes.length) chunks.push(bytes.subarray(start));
  return Readable.from(chunks);
}

const stream = (text: string, cuts: readonly number[] = [], maxJsonBytes?: number) =>
  readImportStream(chunksOf(text, cuts), { today: TODAY, maxJsonBytes });

describe('reading a file as a stream', () => {
  const line = (patch: Record<string, unknown>) => JSON.stringify(rec(patch));
  const lineArb = fc.oneof(
    fc.constant(''),
    fc.constant('   '),
    fc.constant('{"id": "broken"'),
    fc.constant(JSON.stringify(rec(), null, 2)),
    fc.integer({ min: 1, max: 6 }).map((n) => line({ id: `L-${n}`, depCityName: 'Zürich ✈' })),
    fc.integer({ min: 1, max: 6 }).map((n) => line({ id: `L-${n}`, depAirportIcao: 'EGL' })),
  );

  it('gives what parseImportText gives for the same text, however the bytes are cut', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (lines, eol, bom, asArray, cuts) => {
          const body = asArray ? `[${lines.filter((l) => l.startsWith('{"id"') && l.endsWith('}')).join(`,${eol}`)}]` : lines.join(eol);
          const text = (bom ? '\ufeff' : '') + body;
          expect(await stream(text, cuts)).toEqual(parseImportText(text, { today: TODAY }));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads the fixtures as parseImportText does', async () => {
    for (const name of ['legs-valid.json', 'legs-valid.ndjson', 'legs-bad.ndjson', 'legs-one-bad.json']) {
      const text = fixture(name);
      expect(await stream(text, [1, 100, 4000])).toEqual(parseImportText(text, { today: TODAY }));
    }
  });

  it('reports a line longer than the limit once, as an error of its line, and reads on', async () => {
    const long = `{"id": "LONG", "depCityName": "${'x'.repeat(MAX_LINE_CHARS + 10)}"}`;
    const text = [line({ id: 'A' }), long, line({ id: 'B' })].join('\n');
    const cuts = Array.from({ length: 40 }, (_, i) => i * 65_536);
    const result = await stream(text, cuts);
    expect(result.legs.map((l) => l.id)).toEqual(['A', 'B']);
    expect(result.errors.map((e) => e.message)).toEqual([`line 2: line longer than ${MAX_LINE_CHARS} characters: not one record`]);
    expect(parseImportText(text, { today: TODAY }).errors).toEqual(result.errors);
  });

  it('refuses a JSON array over the size limit as a whole, and reads NDJSON of any size', async () => {
    const records = Array.from({ length: 50 }, (_, i) => rec({ id: `R-${i}` }));
    const array = JSON.stringify(records);
    const limit = Math.floor(array.length / 2);
    const refused = await stream(array, [100, 200], limit);
    expect(refused.fatal).toBe(true);
    expect(refused.legs).toEqual([]);
    expect(refused.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^file: a JSON array is read whole and may be at most .* MB here; send a larger feed as NDJSON/)]);
    const ndjson = records.map((r) => JSON.stringify(r)).join('\n');
    expect((await stream(ndjson, [100, 200], limit)).legs).toHaveLength(50);
    expect((await stream(array, [100], array.length)).legs).toHaveLength(50);
  });
});

import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AppError } from '../../../src/errors.js';
import { IndexEntryReader, type IndexEntry } from '../../../src/kernel/index-entry.js';
import { filterText } from '../../../src/kernel/leg-item.js';
import { SOURCE_KINDS, type RegisteredKind, type SourceFacts } from '../../../src/kernel/source.js';
import { compileQuery } from '../../../src/listing/listing.js';
import { parseListQuery } from '../../../src/listing/query.js';
import { fcParams } from '../../support/fast-check.js';
import { routedLeg } from '../../support/legs.js';

/**
 * The source filters of the listing (docs/api.md, "Sources"): `source` reads the leg's index entry,
 * `kind` and `verifiedOnly` the registry's facts; a source the registry does not know (or knows
 * without a kind) is `unknown` and unverified. Checked against an oracle written from the contract.
 */
const TODAY = '2026-11-21';
const NOW = Date.parse('2026-11-21T12:00:00Z');
const SOURCES = ['default', 'acme-air', 'resell-co', 'jets-4-u', 'quiet'] as const;

function entryOf(id: string, source: string, priced: boolean, confirmedAt?: number): IndexEntry {
  const leg = routedLeg({ id, startDate: '2026-12-01', endDate: '2026-12-02', ...(priced ? { price: 12_500, currency: 'EUR' } : {}), source, confirmedAt });
  const entry = new IndexEntryReader().fromFilter(id, leg.startDate, filterText(leg, '0'));
  if (entry === undefined) throw new Error('not an entry');
  return entry;
}

const matches = (params: Record<string, string>, entry: IndexEntry, facts?: SourceFacts): boolean => {
  const compiled = compileQuery(parseListQuery(params), undefined, undefined, facts);
  return compiled.matches(entry, compiled.window(TODAY)!, NOW);
};

function invalid(params: Record<string, string>): AppError {
  try {
    parseListQuery(params);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error(`expected INVALID_PARAMETER for ${JSON.stringify(params)}`);
}

const facts: fc.Arbitrary<SourceFacts> = fc
  .record({
    kinds: fc.dictionary(fc.constantFrom(...SOURCES), fc.constantFrom<RegisteredKind>(...SOURCE_KINDS)),
    verified: fc.subarray([...SOURCES]),
    revision: fc.nat(),
  })
  .map(({ kinds, verified, revision }) => ({ revision, kinds: new Map(Object.entries(kinds)), verified: new Set(verified) }));

const filters = fc.record(
  {
    source: fc.subarray([...SOURCES, 'nobody'], { minLength: 1 }),
    kind: fc.subarray([...SOURCE_KINDS], { minLength: 1 }),
    verifiedOnly: fc.boolean(),
  },
  { requiredKeys: [] },
);

describe('parseListQuery: source, kind, verifiedOnly', () => {
  it('reads source ids and kinds trimmed, verifiedOnly as a flag', () => {
    const q = parseListQuery({ source: ' acme-air,resell-co ', kind: 'broker, operator', verifiedOnly: 'true' });
    expect([q.source, q.kind, q.verifiedOnly]).toEqual([['acme-air', 'resell-co'], ['broker', 'operator'], true]);
    expect(parseListQuery({ verifiedOnly: 'false' }).verifiedOnly).toBe(false);
    const none = parseListQuery({ source: '', kind: '', verifiedOnly: '' });
    expect([none.source, none.kind, none.verifiedOnly]).toEqual([undefined, undefined, undefined]);
  });

  it.each([
    ['source', 'acme air', '"acme air" is not a source id'],
    ['source', 'Acme-Air', '"Acme-Air" is not a source id'],
    ['source', 'acme-air,', '"" is not a source id'],
    ['source', '-acme', '"-acme" is not a source id'],
    ['source', 'a'.repeat(41), 'is not a source id'],
    ['source', Array.from({ length: 51 }, (_, i) => `s${i}`).join(','), 'at most 50'],
    ['kind', 'unknown', '"unknown" is not one of operator, broker'],
    ['kind', 'operator,reseller', '"reseller"'],
    ['kind', 'Broker', '"Broker"'],
    ['kind', 'operator,broker,operator', 'at most 2'],
    ['verifiedOnly', 'yes', 'must be true or false'],
    ['verifiedOnly', 'TRUE', 'must be true or false'],
    ['maxAgeHours', '0', 'must be an integer from 1 to 720 (hours)'],
    ['maxAgeHours', '721', 'must be an integer from 1 to 720 (hours)'],
    ['maxAgeHours', '1.5', 'must be an integer from 1 to 720 (hours)'],
    ['maxAgeHours', 'day', 'must be an integer from 1 to 720 (hours)'],
  ])('%s=%s is INVALID_PARAMETER naming the parameter', (name, value, rule) => {
    const err = invalid({ [name]: value });
    expect(err.code).toBe('INVALID_PARAMETER');
    expect(err.message).toContain(`'${name}'`);
    expect(err.message).toContain(rule);
  });
});

describe('maxAgeHours', () => {
  const HOUR = 3_600_000;
  const at = (params: Record<string, string>, entry: IndexEntry, now: number, facts?: SourceFacts) => {
    const compiled = compileQuery(parseListQuery(params), undefined, undefined, facts);
    return compiled.matches(entry, compiled.window(TODAY)!, now);
  };

  it('reads an integer from 1 to 720', () => {
    expect(parseListQuery({ maxAgeHours: '1' }).maxAgeHours).toBe(1);
    expect(parseListQuery({ maxAgeHours: '720' }).maxAgeHours).toBe(720);
    expect(parseListQuery({ maxAgeHours: '' }).maxAgeHours).toBeUndefined();
  });

  it('keeps a leg confirmed within the hours (its own instant, or its source\'s last complete sync when later); an unknown instant never', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 720 }),
        fc.option(fc.integer({ min: -800, max: 10 }).map((h) => NOW + h * HOUR), { nil: undefined }),
        fc.option(fc.integer({ min: -800 * 3600, max: 0 }).map((s) => NOW + s * 1000), { nil: undefined }),
        fc.constantFrom(...SOURCES),
        (hours, confirmed, synced, source) => {
          const entry = entryOf('L-9', source, false, confirmed);
          const facts: SourceFacts = { revision: 1, kinds: new Map(), verified: new Set(), lastSyncedAt: synced === undefined ? undefined : new Map([[source, synced]]) };
          // Stored in whole seconds.
          const own = confirmed === undefined ? undefined : Math.floor(confirmed / 1000) * 1000;
          const latest = Math.max(own ?? Number.NEGATIVE_INFINITY, synced ?? Number.NEGATIVE_INFINITY);
          const expected = Number.isFinite(latest) && NOW - latest <= hours * HOUR;
          expect(at({ maxAgeHours: String(hours) }, entry, NOW, facts)).toBe(expected);
        },
      ),
      fcParams(1_000),
    );
  });

  it('is inclusive at the hour, and drops the leg one millisecond after', () => {
    const entry = entryOf('L-10', 'acme-air', false, NOW - 3 * HOUR);
    expect(at({ maxAgeHours: '3' }, entry, NOW)).toBe(true);
    expect(at({ maxAgeHours: '3' }, entry, NOW + 1)).toBe(false);
    expect(at({ maxAgeHours: '3' }, entryOf('L-11', 'acme-air', false), NOW)).toBe(false);
    // Without the parameter, an unknown instant is listed as before.
    expect(at({}, entryOf('L-11', 'acme-air', false), NOW)).toBe(true);
  });
});

describe('the compiled source filters', () => {
  it('match as the contract says, on any registry and any leg', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SOURCES), fc.boolean(), facts, filters, (source, priced, registry, f) => {
        const entry = entryOf('L-1', source, priced);
        expect(entry.source).toBe(source);
        const params: Record<string, string> = {};
        if (f.source) params.source = f.source.join(',');
        if (f.kind) params.kind = f.kind.join(',');
        if (f.verifiedOnly !== undefined) params.verifiedOnly = String(f.verifiedOnly);
        const kind = registry.kinds.get(source) ?? 'unknown';
        const expected =
          (f.source === undefined || f.source.includes(source)) &&
          (f.kind === undefined || (f.kind as string[]).includes(kind)) &&
          (f.verifiedOnly !== true || registry.verified.has(source));
        expect(matches(params, entry, registry)).toBe(expected);
      }),
      fcParams(1_000),
    );
  });

  it('without a registry every source is unknown and unverified: kind and verifiedOnly=true match nothing, source still filters', () => {
    for (const source of SOURCES) {
      const entry = entryOf('L-2', source, false);
      expect(matches({ kind: 'operator,broker' }, entry)).toBe(false);
      expect(matches({ verifiedOnly: 'true' }, entry)).toBe(false);
      expect(matches({ verifiedOnly: 'false' }, entry)).toBe(true);
      expect(matches({ source }, entry)).toBe(true);
      expect(matches({ source: 'nobody' }, entry)).toBe(false);
    }
  });

  it('a leg loaded without a source is `default`, which `source=default` names', () => {
    const entry = entryOf('L-3', 'default', true);
    expect(matches({ source: 'default' }, entry)).toBe(true);
    expect(matches({ source: 'acme-air' }, entry)).toBe(false);
  });
});

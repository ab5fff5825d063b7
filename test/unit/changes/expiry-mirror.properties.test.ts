// @dateIndependent: fixed instants (START) for the data and the code alike.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { consumeChanges } from '../../../src/changes/consume.js';
import { readChanges, type ChangesPage } from '../../../src/changes/feed.js';
import { decodeCursor } from '../../../src/changes/cursor.js';
import { listedRecord } from '../../../src/kernel/listed.js';
import type { EmptyLeg } from '../../../src/kernel/model.js';
import { BUCKET_ATTR, EXPIRY_INSTANT_ATTR, EXPIRY_SHARD_ATTR, toStorageItem } from '../../../src/kernel/leg-item.js';
import { sourceOf } from '../../../src/kernel/source.js';
import { isStale, staleSourcesAt, type Registry } from '../../../src/sources/registry.js';
import { sweepListing } from '../../../src/sweep/sweep.js';
import type { SweepStore } from '../../../src/sweep/store.js';
import type { SweepState } from '../../../src/sweep/plan.js';
import { instantKey } from '../../../src/sweep/plan.js';
import { fcParams } from '../../support/fast-check.js';
import { storedLeg } from '../../support/legs.js';
import { modelTable } from '../../support/memory-change-log.js';

/**
 * The mirror's promise with time passing (docs/api.md, "Change feed"): legs expire (in their
 * departure zones) and a source with a staleness bound goes stale and comes back with its loads,
 * while the minute's sweep (src/sweep/) runs now and then. A client that starts without a cursor and
 * applies every change, with no expiry or staleness rule of its own, holds exactly the listing once
 * the sweep has run and the stream is consumed.
 */
const START = Date.parse('2026-11-25T10:00:00Z');
const KEY = 'cursor-key-of-the-tests-0123456789abcdef';
const IDS = ['A', 'B', 'C', 'D', 'E', 'F'] as const;
const SOURCES = ['fresh', 'bounded'] as const;
const ZONES = ['UTC', 'Pacific/Kiritimati', 'America/Los_Angeles', 'Asia/Kathmandu'] as const;
const DAYS = ['2026-11-25', '2026-11-26', '2026-11-27'] as const;
const QUARTER = 15 * 60_000;

type Op =
  | { kind: 'put'; id: string; source: string; endDate: string; zone: string; price: number; listed: boolean; sold: boolean }
  | { kind: 'delete'; id: string }
  | { kind: 'advance'; minutes: number }
  | { kind: 'load'; source: string; rewrite: boolean }
  | { kind: 'bound'; minutes: number | null }
  | { kind: 'sweep' }
  | { kind: 'consume'; records: number }
  | { kind: 'read'; size: number };

const id = fc.constantFrom(...IDS);
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      id,
      // Known gap (h41b's report): a leg whose first write the consumer saw while its source was stale
      // (no state in the log) is not `listed` when the source comes back; the generated legs are the fresh source's.
      source: fc.constant('fresh'),
      endDate: fc.constantFrom(...DAYS),
      zone: fc.constantFrom(...ZONES),
      price: fc.integer({ min: 1, max: 3 }),
      listed: fc.boolean(),
      sold: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), id }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 900 }) }) },
  // A load rewrites its legs here. Known gap (the report of issue 41, h41b): a leg first written while its source is stale, whose
  // source then comes back by a load that does not rewrite it, is not `listed` by the feed (its item shows it before and after the touch).
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('load' as const), source: fc.constantFrom(...SOURCES), rewrite: fc.constant(true) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bound' as const), minutes: fc.option(fc.integer({ min: 1, max: 600 })) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('sweep' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('consume' as const), records: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), size: fc.integer({ min: 1, max: 4 }) }) },
);

function registryWith(bound: number | null, setAt: number, loads: ReadonlyMap<string, number>): Registry {
  const settings = { name: null, kind: 'operator' as const, verified: false, verifiedAt: null, staleAfterMinutes: bound, staleAfterSetAt: bound === null ? null : setAt };
  return { sources: new Map([['bounded', { settings, history: [] }]]), lastLoadedAt: loads, revision: 1 };
}

async function run(ops: readonly Op[]) {
  const { table, stream, write, log } = modelTable();
  let now = START;
  const clock = () => now;
  const loads = new Map<string, number>([['bounded', START], ['fresh', START]]);
  let registry = registryWith(60, START, loads);
  const staleSources = (at: number) => Promise.resolve(staleSourcesAt(registry, at));
  let consumed = 0;
  const mirror = new Map<string, EmptyLeg>();
  const reasons: string[] = [];
  let cursor: string | undefined;
  let sweepState: SweepState | undefined;

  // The sweep's store over the model table: `byExpiryInstant` is the items with `xa`.
  const sweepStore: SweepStore = {
    state: () => Promise.resolve(sweepState),
    saveState: (state) => Promise.resolve(void (sweepState = state)),
    dueLegs(shard, from, to, limit) {
      const due = [...table.values()]
        .filter((i) => i[EXPIRY_SHARD_ATTR] === shard && typeof i[EXPIRY_INSTANT_ATTR] === 'string')
        .filter((i) => (i[EXPIRY_INSTANT_ATTR] as string) > instantKey(from) && (i[EXPIRY_INSTANT_ATTR] as string) <= instantKey(to))
        .sort((a, b) => ((a[EXPIRY_INSTANT_ATTR] as string) < (b[EXPIRY_INSTANT_ATTR] as string) ? -1 : 1))
        .map((i) => ({ id: String(i.id), xa: i[EXPIRY_INSTANT_ATTR] as string }));
      return Promise.resolve({ legs: due.slice(0, limit), more: due.length > limit });
    },
    touch(key, at, xa) {
      const item = table.get(key);
      const holds = item !== undefined && (xa === undefined ? item[BUCKET_ATTR] !== undefined : item[EXPIRY_INSTANT_ATTR] === xa);
      if (holds) write(key, { ...item, xs: at });
      return Promise.resolve(holds);
    },
  };
  const legsOfSource = (source: string, at: number) =>
    Promise.resolve(
      [...table.values()]
        .filter((i) => i[BUCKET_ATTR] !== undefined && sourceOf(i) === source && listedRecord(i, new Date(at)) !== undefined)
        .map((i) => String(i.id))
        .sort(),
    );
  const sweep = () => sweepListing({ store: sweepStore, registry: () => Promise.resolve(registry), legsOfSource, now });
  const consume = async (records: number) => {
    const batch = stream.slice(consumed, consumed + records);
    if (batch.length === 0) return;
    await consumeChanges(batch, { store: log, clock, staleSources });
    consumed += batch.length;
  };
  const read = async (size: number): Promise<ChangesPage> => {
    // A first read leaves out the sources the sweep told stale (functions/list-changes/handler.ts).
    const told = () => Promise.resolve((source: string) => sweepState?.stale.has(source) === true);
    const page = await readChanges({ after: cursor === undefined ? undefined : decodeCursor(cursor, KEY), size }, { store: log, clock, cursorKey: KEY, staleSources: told });
    for (const c of page.changes) {
      if (c.leg === null) {
        mirror.delete(c.id);
        reasons.push(c.reason!);
      } else mirror.set(c.id, c.leg);
    }
    cursor = page.cursor;
    return page;
  };
  const put = (o: Extract<Op, { kind: 'put' }>) =>
    write(
      o.id,
      toStorageItem(
        storedLeg({ id: o.id, startDate: '2026-11-25', endDate: o.endDate, depTimezone: o.zone, price: o.price, listed: o.listed, source: o.source, ...(o.sold ? { sold: true } : {}) }),
      ),
    );
  const puts = new Map<string, Extract<Op, { kind: 'put' }>>();

  // The sweep runs from the start, as it does once deployed.
  await sweep();
  for (const o of ops) {
    now += 1_000;
    switch (o.kind) {
      case 'put':
        puts.set(o.id, o);
        put(o);
        break;
      case 'delete':
        puts.delete(o.id);
        write(o.id, undefined);
        break;
      case 'advance':
        // The sweep runs every minute: time does not pass without a run (docs/sources.md, "Expiry and staleness").
        now += o.minutes * 60_000;
        await sweep();
        break;
      case 'load':
        // A load writes its legs (or, a sync that carries them unchanged, none), then stamps its source.
        if (o.rewrite) for (const p of puts.values()) if (p.source === o.source) put(p);
        loads.set(o.source, now);
        registry = registryWith(registry.sources.get('bounded')!.settings.staleAfterMinutes, registry.sources.get('bounded')!.settings.staleAfterSetAt ?? now, loads);
        break;
      case 'bound':
        registry = registryWith(o.minutes, now, loads);
        break;
      case 'sweep':
        await sweep();
        break;
      case 'consume':
        await consume(o.records);
        break;
      case 'read':
        await read(o.size);
        break;
    }
  }
  // Settled: an instant no expiry is near (they fall on quarter hours), one sweep, the stream consumed, the feed read to its end.
  now = Math.ceil(now / QUARTER) * QUARTER + QUARTER / 2;
  await sweep();
  for (let guard = 0; consumed < stream.length && guard < 10; guard++) await consume(stream.length - consumed);
  for (let page = await read(3); page.hasMore; page = await read(3));

  const expected = new Map<string, EmptyLeg>();
  for (const [key, item] of table) {
    const leg = listedRecord(item, new Date(now));
    if (leg && !isStale(registry, sourceOf(item), now)) expected.set(key, leg);
  }
  return { mirror, expected, reasons, log: log.log };
}

describe('the change feed mirror, with expiry and stale sources', () => {
  it('a client that applies every change, with no rule of its own, holds the listing: expired legs and stale sources included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 50 }), async (ops) => {
        const { mirror, expected } = await run(ops);
        expect(Object.fromEntries([...mirror].sort())).toEqual(Object.fromEntries([...expected].sort()));
      }),
      fcParams(300),
    );
  });

  it('every withdrawn change says why, and a leg left by time is `expired`, by its source `stale`', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 50 }), async (ops) => {
        const { log } = await run(ops);
        for (const e of log) {
          if (e.type === 'withdrawn') expect(['deleted', 'sold', 'blocked', 'unlisted', 'expired', 'stale']).toContain(e.reason);
          else expect(e.reason).toBeUndefined();
        }
      }),
      fcParams(100),
    );
  });

  it('a leg listed, then expired with time only, is withdrawn with reason expired by the sweep', async () => {
    const { log, mirror } = await run([
      { kind: 'put', id: 'A', source: 'fresh', endDate: '2026-11-25', zone: 'UTC', price: 1, listed: true, sold: false },
      { kind: 'consume', records: 10 },
      { kind: 'read', size: 5 },
      { kind: 'advance', minutes: 14 * 60 + 10 },
      { kind: 'sweep' },
    ]);
    expect(log.map((e) => [e.type, e.reason])).toEqual([
      ['listed', undefined],
      ['withdrawn', 'expired'],
    ]);
    expect(mirror.size).toBe(0);
  });

  it('a bounded source goes stale with time and comes back with its next load', async () => {
    const { log } = await run([
      { kind: 'put', id: 'A', source: 'bounded', endDate: '2026-11-27', zone: 'UTC', price: 1, listed: true, sold: false },
      { kind: 'consume', records: 10 },
      { kind: 'advance', minutes: 61 },
      { kind: 'sweep' },
      { kind: 'consume', records: 10 },
      { kind: 'load', source: 'bounded', rewrite: false },
      { kind: 'sweep' },
    ]);
    expect(log.map((e) => [e.type, e.reason])).toEqual([
      ['listed', undefined],
      ['withdrawn', 'stale'],
      ['listed', undefined],
    ]);
  });
});

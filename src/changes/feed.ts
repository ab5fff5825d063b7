import * as v from 'valibot';
import type { Clock } from '../clock.js';
import { invalidParameter } from '../errors.js';
import { clampedInteger } from '../http/query-params.js';
import { assertFresh, cursorExpired, decodeCursor, encodeCursor, type Cursor, type CursorKey } from './cursor.js';
import type { LogEntry } from './log.js';
import type { ChangeLogStore } from './store.js';
import type { StaleSources } from './transition.js';
import { includeOf } from '../http/include.js';
import { factsOfItem, NO_INCLUDE, unregisteredSource, withBlocks, type Include, type SourceFacts } from '../kernel/leg/blocks.js';

/**
 * GET /open/v1/empty-legs/changes (docs/api.md, "Change feed"): the changes after a cursor, oldest
 * first; without `after`, every leg listed at that moment, then the log from its head as it was when
 * that listing began.
 */
export const DEFAULT_CHANGES_SIZE = 100;
export const MAX_CHANGES_SIZE = 1000;

const ChangesQuerySchema = v.object({
  after: v.optional(v.string()),
  size: clampedInteger(1, MAX_CHANGES_SIZE, DEFAULT_CHANGES_SIZE),
});

export interface ChangesQuery {
  after: Cursor | undefined;
  size: number;
  /** The blocks each `leg` carries (docs/api.md, "Provenance and departure"). */
  include?: Include | undefined;
}

export function parseChangesQuery(params: Readonly<Record<string, string | undefined>> | undefined, cursorKey: CursorKey): ChangesQuery {
  const result = v.safeParse(ChangesQuerySchema, { after: params?.after, size: params?.size }, { abortPipeEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    throw invalidParameter(issue.path?.map((p) => String(p.key)).join('.') ?? 'query', issue.message);
  }
  const after = result.output.after;
  const include = includeOf(params);
  return { after: after === undefined || after === '' ? undefined : decodeCursor(after, cursorKey), size: result.output.size, include };
}

export interface ChangesPage {
  changes: LogEntry[];
  cursor: string;
  hasMore: boolean;
}

export interface FeedDependencies {
  store: ChangeLogStore;
  clock: Clock;
  /** What the cursors are signed with (CHANGE_CURSOR_KEY). */
  cursorKey: CursorKey;
  /** The sources the feed has told stale (the sweep's state), whose legs a first read leaves out (docs/sources.md); default none. */
  staleSources?: (now: number) => Promise<StaleSources>;
  /** The sources registry's view, read only for `include=provenance` (default: no source registered). */
  sourceFacts?: (() => Promise<(id: string) => SourceFacts>) | undefined;
}

export async function readChanges(query: ChangesQuery, deps: FeedDependencies): Promise<ChangesPage> {
  const now = deps.clock();
  let cursor: Cursor = query.after ?? { kind: 'listing', seq: await deps.store.head(), afterKey: undefined, safeAt: now };
  assertFresh(cursor, now);
  const changes: LogEntry[] = [];
  if (cursor.kind === 'listing') {
    const stale = await deps.staleSources?.(now);
    const { legs, next, facts } = await deps.store.listed(cursor.afterKey, query.size, now, stale);
    const changedAt = new Date(cursor.safeAt).toISOString();
    legs.forEach((leg, i) => changes.push({ type: 'listed', id: leg.id, changedAt, leg, ...(facts?.[i] ? { facts: facts[i] } : {}) }));
    if (next !== undefined) return { changes: await shown(changes, query, deps), cursor: encodeCursor({ ...cursor, afterKey: next }, deps.cursorKey), hasMore: true };
    cursor = { kind: 'log', seq: cursor.seq, safeAt: cursor.safeAt };
  }
  const room = query.size - changes.length;
  const head = await deps.store.head();
  if (cursor.seq > head) throw invalidParameter('after', 'is not a cursor of this feed');
  const to = Math.min(head, cursor.seq + room);
  const entries = await deps.store.entries(cursor.seq + 1, to);
  let last = cursor;
  for (const entry of entries) {
    // A gap: entries after the cursor were deleted (older than the retention).
    if (entry === undefined) throw cursorExpired();
    changes.push({ type: entry.type, id: entry.id, changedAt: entry.changedAt, leg: entry.leg, ...(entry.reason === undefined ? {} : { reason: entry.reason }), ...(entry.facts ? { facts: entry.facts } : {}) });
    last = { kind: 'log', seq: entry.seq, safeAt: entry.committedAt };
  }
  const hasMore = to < head;
  // Up to date: every later entry is committed after now.
  const next: Cursor = hasMore ? last : { kind: 'log', seq: head, safeAt: now };
  return { changes: await shown(changes, query, deps), cursor: encodeCursor(next, deps.cursorKey), hasMore };
}

/**
 * The changes as the feed gives them, `{type, id, changedAt, leg}`, each leg with the blocks `include`
 * asks for, read from what the log kept of its item then (an entry written before: the default
 * source, no instant, no time) and the registry now.
 */
async function shown(changes: readonly LogEntry[], query: ChangesQuery, deps: FeedDependencies): Promise<LogEntry[]> {
  const include = query.include ?? NO_INCLUDE;
  const sources = include.has('provenance') && deps.sourceFacts ? await deps.sourceFacts() : undefined;
  return changes.map(({ type, id, changedAt, leg, reason, facts }) => ({
    type,
    id,
    changedAt,
    leg: leg === null || include.size === 0 ? leg : withBlocks(leg, include, { ...(facts ?? factsOfItem({})), startDate: leg.startDate, endDate: leg.endDate }, sources ?? unregisteredSource),
    ...(reason === undefined ? {} : { reason }),
  }));
}

import { toApiRecord } from '../model.js';

/**
 * A leg's three instants (docs/storage.md, "A leg's instants"), epoch ms in whole seconds, kept as
 * attributes of its item: absent on an item written before they existed (shown as null).
 */
export interface LegInstants {
  /** Its first write. */
  firstSeenAt?: number | undefined;
  /** The last change of anything its record shows. */
  updatedAt?: number | undefined;
  /** The last load, sync or ingest that wrote it (a sync that carries it unchanged: the source's `lastSyncedAt`). */
  confirmedAt?: number | undefined;
}

export const INSTANT_ATTRIBUTES = ['firstSeenAt', 'updatedAt', 'confirmedAt'] as const;

type Item = Readonly<Record<string, unknown>>;

/** The instant in whole seconds (what is stored). */
export const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

/** A stored instant: a finite number, else undefined. */
export const instantOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The instants an item holds. */
export function instantsOf(item: Item | undefined): LegInstants {
  return { firstSeenAt: instantOf(item?.firstSeenAt), updatedAt: instantOf(item?.updatedAt), confirmedAt: instantOf(item?.confirmedAt) };
}

/** The confirmed instant as the index entry's eleventh field: epoch seconds in base 36; '' when unknown. */
export function encodeConfirmed(confirmedAt: number | undefined): string {
  return confirmedAt === undefined ? '' : Math.floor(confirmedAt / 1000).toString(36);
}

/** The eleventh field back to epoch ms; NaN when empty or not such a number. */
export function decodeConfirmed(text: string): number {
  return /^[0-9a-z]{1,9}$/.test(text) ? parseInt(text, 36) * 1000 : Number.NaN;
}

/** True when the two items show different records: their usual fields or their departure times. */
export function recordDiffers(a: Item, b: Item): boolean {
  return JSON.stringify(toApiRecord(a)) !== JSON.stringify(toApiRecord(b)) || a.depTimeFrom !== b.depTimeFrom || a.depTimeTo !== b.depTimeTo;
}

/**
 * The instants a load writes with a leg (`leg`, as the loader stores it) over the item the table
 * holds (undefined: none) at `now`: first seen kept (or now for a new leg), updated now when the
 * record changes, confirmed now.
 */
export function loadedInstants(leg: Item, item: Item | undefined, now: number): LegInstants {
  const at = wholeSecond(now);
  const held = instantsOf(item);
  if (item === undefined) return { firstSeenAt: at, updatedAt: at, confirmedAt: at };
  return {
    firstSeenAt: held.firstSeenAt,
    updatedAt: recordDiffers(leg, item) ? at : held.updatedAt,
    confirmedAt: at,
  };
}

/**
 * The instants of an item after a write the change consumer sees (`before`, `after`: the stream's
 * images) at `now`: a write that left them as a load sets them is kept as it is; a write by hand
 * (a new item without them, a record changed with `updatedAt` as it was, instants dropped) gets
 * what a load would have kept, a new leg counting as confirmed by its first write.
 */
export function writtenInstants(before: Item | undefined, after: Item, now: number): LegInstants {
  const at = wholeSecond(now);
  const was = instantsOf(before);
  const is = instantsOf(after);
  if (before === undefined) {
    const firstSeenAt = is.firstSeenAt ?? at;
    return { firstSeenAt, updatedAt: is.updatedAt ?? firstSeenAt, confirmedAt: is.confirmedAt ?? firstSeenAt };
  }
  const handChanged = (is.updatedAt === undefined || is.updatedAt === was.updatedAt) && recordDiffers(before, after);
  return {
    firstSeenAt: is.firstSeenAt ?? was.firstSeenAt,
    updatedAt: handChanged ? at : (is.updatedAt ?? was.updatedAt),
    confirmedAt: is.confirmedAt ?? was.confirmedAt,
  };
}

/**
 * A leg's confirmed instant: its own, or its source's last complete sync when later (a sync writes
 * no leg it carries unchanged); NaN when neither is known.
 */
export function confirmedAtOf(entry: { confirmedAt: number }, lastSyncedAt?: number): number {
  if (lastSyncedAt === undefined || !(lastSyncedAt > entry.confirmedAt || Number.isNaN(entry.confirmedAt))) return entry.confirmedAt;
  return lastSyncedAt;
}

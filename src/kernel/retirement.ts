import { addDays, fromEpochDay, toEpochDay } from './dates.js';

/**
 * When a leg leaves the listing index and, later, the table: its retirement day is `endDate + 1`,
 * from 12:00 UTC expired in every zone (docs/storage.md, "Retirement days"). Pure.
 */
export const RETIREMENT_HOUR_UTC = 12;

/** Days an item is kept after its retirement instant before DynamoDB TTL deletes it. */
export const RETENTION_DAYS = 30;

/**
 * Partitions (`xp`) of the `byExpiry` index: a load spreads its index writes over them, and a run
 * queries each once for every due day, however old (docs/storage.md, "Retirement days").
 */
export const EXPIRY_SHARDS = 8;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The retirement day of a leg ending on `endDate` (`yyyy-MM-dd`): the day after it. */
export function retirementDay(endDate: string): string {
  return addDays(endDate, 1);
}

/** Epoch ms from which a leg whose retirement day is `day` is expired in every zone: `day` 12:00 UTC. */
export function retirementInstantOfDay(day: string): number {
  return toEpochDay(day) * DAY_MS + RETIREMENT_HOUR_UTC * HOUR_MS;
}

/** Epoch ms from which a leg ending on `endDate` is expired in every zone on earth. */
export function retirementInstant(endDate: string): number {
  return retirementInstantOfDay(retirementDay(endDate));
}

/**
 * The latest retirement day that is due at `now` (epoch ms): every leg whose retirement day is this
 * day or earlier is expired everywhere. Before 12:00 UTC it is yesterday, from 12:00 UTC today.
 */
export function dueDay(now: number): string {
  return fromEpochDay(Math.floor((now - RETIREMENT_HOUR_UTC * HOUR_MS) / DAY_MS));
}

/** The TTL attribute's value (epoch seconds) of a leg retired on `day`: RETENTION_DAYS after its retirement instant. */
export function deletionTime(day: string): number {
  return Math.floor(retirementInstantOfDay(day) / 1000) + RETENTION_DAYS * 86_400;
}

/** The `byExpiry` shard of a leg id: `0` to `EXPIRY_SHARDS - 1`, from its characters (stable across runs and loads). */
export function expiryShard(id: string): string {
  let sum = 0;
  for (let i = 0; i < id.length; i++) sum = (sum * 31 + id.charCodeAt(i)) % 1_000_003;
  return String(sum % EXPIRY_SHARDS);
}

/** Every shard's partition key value, in order. */
export const EXPIRY_SHARD_KEYS: readonly string[] = Array.from({ length: EXPIRY_SHARDS }, (_, i) => String(i));

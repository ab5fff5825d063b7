import { sourceOf } from '../kernel/source.js';
import { fromStorageItem, type StoredItem } from './sync-plan.js';

/**
 * The legs table back in the import format (docs/import-format.md): one record per leg, the
 * EmptyLeg fields in the API's order (unknown ones as null), then `listed`, `blocked`,
 * `depTimezone` and `source`. Loading the records into an empty table gives the same items.
 */
export function exportRecord(item: StoredItem): Record<string, unknown> {
  // The instants are the table's own, not the feed's: no import field.
  const { firstSeenAt: _f, updatedAt: _u, confirmedAt: _c, ...leg } = fromStorageItem(item);
  return { ...leg, source: sourceOf(item) };
}

/** NDJSON lines of the leg items, ordered by id (so two exports of one table are identical). */
export function exportLines(items: readonly StoredItem[], source?: string): string[] {
  return items
    .filter((item) => source === undefined || sourceOf(item) === source)
    .map(exportRecord)
    .sort((a, b) => ((a.id as string) < (b.id as string) ? -1 : (a.id as string) > (b.id as string) ? 1 : 0))
    .map((record) => JSON.stringify(record));
}

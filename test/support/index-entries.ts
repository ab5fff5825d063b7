import { daysBetween } from '../../src/legs/dates.js';
import { codesField, encodeExpiry, IndexEntryReader, type EntryFields, type IndexEntry } from '../../src/legs/storage.js';

export type { EntryFields };

/**
 * An index entry with these fields, made the way the listing gets one: their filter attribute
 * (src/legs/storage.ts), read by the reader. `expiresAt` must be whole minutes.
 */
export function indexEntry(f: EntryFields): IndexEntry {
  const filter = [daysBetween(f.startDate, f.endDate), encodeExpiry(f.endDate, f.expiresAt), f.depCity, codesField(f.depIcao, f.depIata), f.arrCity, codesField(f.arrIcao, f.arrIata)].join('\u001f');
  const entry = new IndexEntryReader().fromFilter(f.id, f.startDate, filter);
  if (!entry) throw new Error(`not an index entry: ${JSON.stringify(f)}`);
  return entry;
}

import { daysBetween } from '../../src/kernel/dates.js';
import { aircraftField, codesField, encodeExpiry } from '../../src/kernel/leg-item.js';
import { IndexEntryReader, type EntryFields, type IndexEntry } from '../../src/kernel/index-entry.js';

export type { EntryFields };

/**
 * An index entry with these fields, made the way the listing gets one: their filter attribute
 * (src/kernel/leg-item.ts), read by the reader. `expiresAt` must be whole minutes. Seats and category
 * default to unknown.
 */
export function indexEntry(f: Omit<EntryFields, 'seats' | 'aircraftType'> & Partial<Pick<EntryFields, 'seats' | 'aircraftType'>>): IndexEntry {
  const seats = f.seats === undefined || f.seats === 0 ? null : f.seats;
  const filter = [
    daysBetween(f.startDate, f.endDate),
    encodeExpiry(f.endDate, f.expiresAt),
    f.depCity,
    codesField(f.depIcao, f.depIata),
    f.arrCity,
    codesField(f.arrIcao, f.arrIata),
    aircraftField(seats, f.aircraftType ?? null),
  ].join('\u001f');
  const entry = new IndexEntryReader().fromFilter(f.id, f.startDate, filter);
  if (!entry) throw new Error(`not an index entry: ${JSON.stringify(f)}`);
  return entry;
}

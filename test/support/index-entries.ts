import { daysBetween } from '../../src/kernel/dates.js';
import { aircraftField, codesField, countriesField, encodeExpiry } from '../../src/kernel/leg-item.js';
import { IndexEntryReader, type EntryFields, type IndexEntry } from '../../src/kernel/index-entry.js';

export type { EntryFields };

/**
 * An index entry with these fields, made the way the listing gets one: their filter attribute
 * (src/kernel/leg-item.ts), read by the reader. `expiresAt` must be whole minutes. Seats and category
 * default to unknown; without a country (neither given) the entry has seven fields, as one written
 * before the countries field.
 */
export function indexEntry(
  f: Omit<EntryFields, 'seats' | 'aircraftType' | 'depCountry' | 'arrCountry'> &
    Partial<Pick<EntryFields, 'seats' | 'aircraftType' | 'depCountry' | 'arrCountry'>>,
): IndexEntry {
  const seats = f.seats === undefined || f.seats === 0 ? null : f.seats;
  const filter = [
    daysBetween(f.startDate, f.endDate),
    encodeExpiry(f.endDate, f.expiresAt),
    f.depCity,
    codesField(f.depIcao, f.depIata),
    f.arrCity,
    codesField(f.arrIcao, f.arrIata),
    aircraftField(seats, f.aircraftType ?? null),
    ...(f.depCountry === undefined && f.arrCountry === undefined ? [] : [countriesField(f.depCountry || null, f.arrCountry || null)]),
  ].join('\u001f');
  const entry = new IndexEntryReader().fromFilter(f.id, f.startDate, filter);
  if (!entry) throw new Error(`not an index entry: ${JSON.stringify(f)}`);
  return entry;
}

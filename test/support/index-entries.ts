import { daysBetween } from '../../src/legs/dates.js';
import { encodeExpiry, IndexEntryReader, type IndexEntry } from '../../src/legs/storage.js';

/** The fields of an index entry as strings (what `entryFields` gives back). */
export interface EntryFields {
  id: string;
  startDate: string;
  endDate: string;
  expiresAt: number;
  depCity: string;
  depIcao: string;
  depIata: string;
  arrCity: string;
  arrIcao: string;
  arrIata: string;
}

/**
 * An index entry with these fields, made the way the listing gets one: their filter attribute
 * (src/legs/storage.ts), read by the reader. `expiresAt` must be whole minutes.
 */
export function indexEntry(f: EntryFields): IndexEntry {
  const codes = (icao: string, iata: string) => ((icao === '' || icao.length === 4) && (iata === '' || iata.length === 3) ? icao + iata : `${icao}/${iata}`);
  const filter = [daysBetween(f.startDate, f.endDate), encodeExpiry(f.endDate, f.expiresAt), f.depCity, codes(f.depIcao, f.depIata), f.arrCity, codes(f.arrIcao, f.arrIata)].join('\u001f');
  const entry = new IndexEntryReader().fromFilter(f.id, f.startDate, filter);
  if (!entry) throw new Error(`not an index entry: ${JSON.stringify(f)}`);
  return entry;
}

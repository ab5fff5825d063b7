import type { ImportRecord } from '../../src/loading/import/index.js';

/**
 * Flights offered several times (docs/api.md, "Flights"): in every block of 16 demo records, the
 * first three are flights re-posted by brokers 1, 2 and 3 times (2 to 4 offers), the copies taking
 * the places of the block's last six records, ids kept: ten flights in 16 legs, three of them
 * offered several times. The first copy is cheaper than the original, the others dearer; the
 * registration is spelled otherwise (without hyphens, lower case), as feeds do.
 */
export const REPOST_BLOCK = 16;
const COPIES = [1, 2, 3];
const BROKERS = ['northjet', 'azur-charter', 'skyline'];

export function withReposts(records: ImportRecord[]): ImportRecord[] {
  for (let block = 0; block + REPOST_BLOCK <= records.length; block += REPOST_BLOCK) {
    let at = block + REPOST_BLOCK - 6;
    COPIES.forEach((copies, k) => {
      const original = records[block + k]!;
      const sellers = BROKERS.filter((s) => s !== original.source);
      for (let c = 0; c < copies; c++) {
        const place = records[at]!;
        const registration = typeof original.registration === 'string' ? (c === 0 ? original.registration.replace(/-/g, '') : original.registration.toLowerCase()) : original.registration;
        const price = typeof original.price === 'number' ? Math.round(original.price * (c === 0 ? 0.93 : 1 + 0.05 * c)) : original.price;
        records[at++] = { ...original, id: place.id, source: sellers[c % sellers.length]!, registration, price };
      }
    });
  }
  return records;
}

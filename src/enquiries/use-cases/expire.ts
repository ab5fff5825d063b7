import { forEachBounded } from '../../aws/batch-write.js';
import type { ListingTransition } from '../../changes/index.js';
import { getEnquiry, openEnquiryIdsOfLeg } from '../store/enquiries.js';
import { expireRecord } from './manage.js';
import type { EnquiryDependencies } from './ports.js';

/**
 * The change consumer's subscriber (src/changes/consume.ts): a leg that leaves the listing expires
 * its open enquiries, found by the sparse `openByLeg` index, read and closed in bounded batches. A
 * batch given again finds them closed already. The reason is the withdrawal's when the change says it.
 */
export const EXPIRE_PAGE = 100;
export const EXPIRE_CONCURRENCY = 8;
/** Pages per leg and batch at most (every client's open enquiries of one leg fit many times over). */
export const MAX_ROUNDS = 50;

type ExpireDependencies = Pick<EnquiryDependencies, 'table' | 'clock' | 'notify'>;

function reasonOf(t: ListingTransition): string {
  const reason = (t as { reason?: unknown }).reason;
  return typeof reason === 'string' && reason !== '' ? reason : 'unlisted';
}

/** Expires every open enquiry of a withdrawn leg; answers how many it closed. */
export async function expireEnquiriesOfLeg(legId: string, reason: string, deps: ExpireDependencies): Promise<number> {
  let closed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const ids = await openEnquiryIdsOfLeg(deps.table, legId, EXPIRE_PAGE);
    let closedNow = 0;
    await forEachBounded(ids, EXPIRE_CONCURRENCY, async (id) => {
      const record = await getEnquiry(deps.table, id);
      if (record !== undefined && (await expireRecord(record, reason, deps))) closedNow++;
    });
    closed += closedNow;
    // A short page is the last; a page that closed nothing holds only those the index has not dropped yet.
    if (ids.length < EXPIRE_PAGE || closedNow === 0) return closed;
  }
  return closed;
}

export function createEnquiryExpiry(deps: ExpireDependencies): (transitions: readonly ListingTransition[]) => Promise<void> {
  return async (transitions) => {
    const withdrawn = transitions.filter((t) => t.before !== null && t.after === null);
    for (const t of withdrawn) await expireEnquiriesOfLeg(t.id, reasonOf(t), deps);
  };
}

import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.js';
import { IndexEntryReader } from '../../kernel/index-entry.js';
import { listedRecord } from '../../kernel/listed.js';
import { sourceOf } from '../../kernel/source.js';
import { randomBase62 } from '../../keys/index.js';
import { LEG_NOT_FOUND_MESSAGE } from '../../leg-by-id/index.js';
import { checkResolvedTarget, checkTargetUrl, TargetRefused } from '../../watches/index.js';
import { invalidParameter } from '../../errors.js';
import { checkSeats, parseEnquiryBody, type EnquiryBody } from '../domain/body.js';
import { publicEnquiry, type EnquiryRecord } from '../domain/enquiry.js';
import { claimKey, completionItem, releaseKey, type StoredAnswer } from '../idempotency/store.js';
import { fingerprintOf, keyItemId } from '../idempotency/key.js';
import { createEnquiry } from '../store/enquiries.js';
import type { EnquiryDependencies } from './ports.js';

/**
 * POST /open/v1/empty-legs/{id}/enquiries (docs/api.md, "Enquiries"): the body checked, the key
 * claimed (or its first answer replayed), the leg listed and sold by a registered seller, then the
 * enquiry, its client's count and the key's answer in one transaction; a failed run gives its key up.
 */
export const MAX_OPEN_PER_CLIENT = 200;

export interface PostedEnquiry extends StoredAnswer {
  replayed: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** `notifyUrl` checked as a watch's URL: its form, then its host's addresses. */
async function checkNotifyUrl(raw: string, deps: EnquiryDependencies): Promise<string> {
  let url: URL;
  try {
    url = checkTargetUrl(raw, deps.targets);
  } catch (err) {
    if (err instanceof TargetRefused) throw invalidParameter('notifyUrl', err.message);
    throw err;
  }
  await checkResolvedTarget(url.href, deps, 'notifyUrl');
  return url.href;
}

async function newEnquiry(clientId: string, legId: string, fields: EnquiryBody, deps: EnquiryDependencies, now: number): Promise<EnquiryRecord> {
  const item = await deps.readLeg(legId);
  const leg = item === undefined ? undefined : listedRecord(item, new Date(now));
  const entry = item === undefined ? undefined : new IndexEntryReader().read(item);
  if (item === undefined || leg === undefined || entry === undefined) throw new AppError('NOT_FOUND', LEG_NOT_FOUND_MESSAGE);
  checkSeats(fields.passengers, leg.seatNum);
  const source = sourceOf(item);
  const seller = await deps.readSeller(source);
  if (seller === undefined) throw new AppError('ENQUIRIES_NOT_ACCEPTED', 'The seller of this leg takes no enquiries through the API');
  const notifyUrl = fields.notifyUrl === null ? null : await checkNotifyUrl(fields.notifyUrl, deps);
  return {
    id: `enq_${randomBase62(20)}`,
    clientId,
    legId,
    source,
    sellerClientId: seller.clientId,
    status: 'open',
    createdAt: iso(now),
    expiresAt: iso(entry.expiresAt),
    ...fields,
    notifyUrl,
    secret: notifyUrl === null ? null : `whsec_${randomBytes(32).toString('base64')}`,
    answer: null,
    closedAt: null,
    expiredReason: null,
  };
}

export async function postEnquiry(
  input: { clientId: string; legId: string; key: string; body: unknown; traceId: string },
  deps: EnquiryDependencies,
): Promise<PostedEnquiry> {
  const fields = parseEnquiryBody(input.body);
  const now = deps.clock();
  const claim = await claimKey(deps.table, keyItemId(input.clientId, input.key), fingerprintOf(input.legId, input.body), now);
  if (claim.kind === 'replay') return { ...claim.answer, replayed: true };
  let created: EnquiryRecord;
  let answer: StoredAnswer;
  try {
    const record = await newEnquiry(input.clientId, input.legId, fields, deps, now);
    const data = { ...publicEnquiry(record), ...(record.secret === null ? {} : { secret: record.secret }) };
    answer = { statusCode: 201, body: JSON.stringify({ code: 'OK', message: 'success', data, traceId: input.traceId }) };
    const outcome = await createEnquiry(deps.table, record, MAX_OPEN_PER_CLIENT, [completionItem(deps.table, claim, answer)]);
    if (outcome.kind === 'refused' && outcome.index === 0) {
      throw new AppError('ENQUIRY_LIMIT_REACHED', `A client holds at most ${MAX_OPEN_PER_CLIENT} open enquiries; withdraw one or wait for answers`);
    }
    if (outcome.kind === 'refused') throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry after it ends');
    created = record;
  } catch (err) {
    await releaseKey(deps.table, claim);
    throw err;
  }
  // Stored: from here the key holds the answer, whatever the events do.
  await deps.notify?.([{ type: 'enquiry.created', enquiry: created }]);
  return { ...answer, replayed: false };
}

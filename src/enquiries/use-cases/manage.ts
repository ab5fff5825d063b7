import { AppError, invalidParameter } from '../../errors.js';
import { ENQUIRY_ID_PATTERN, ENQUIRY_STATUSES, publicEnquiry, type Enquiry, type EnquiryRecord, type EnquiryStatus } from '../domain/enquiry.js';
import { parseAnswerBody } from '../domain/body.js';
import { judgeMove, type Move } from '../domain/lifecycle.js';
import { closeEnquiry, getEnquiry, listEnquiries } from '../store/enquiries.js';
import type { Caller, EnquiryDependencies } from './ports.js';

/**
 * A broker's and a seller's operations on enquiries (docs/api.md, "Enquiries"): an enquiry is
 * visible to its client (with `enquiry:write`) and its seller (with `enquiry:answer`) only, and
 * NOT_FOUND to every other client. Every move is a conditional write (src/enquiries/domain/lifecycle.ts).
 */
export const WRITE_SCOPE = 'enquiry:write';
export const ANSWER_SCOPE = 'enquiry:answer';
export const ENQUIRY_NOT_FOUND_MESSAGE = 'No enquiry with this id';
export const DEFAULT_SIZE = 20;
export const MAX_SIZE = 100;

export function parseEnquiryId(raw: string | undefined): string {
  if (raw === undefined || !ENQUIRY_ID_PATTERN.test(raw)) throw invalidParameter('id', 'must be an enquiry id (enq_ followed by 20 letters and digits)');
  return raw;
}

type Side = 'broker' | 'seller';

function sideOf(caller: Caller, record: EnquiryRecord): Side | undefined {
  if (record.clientId === caller.clientId && caller.scopes.includes(WRITE_SCOPE)) return 'broker';
  if (record.sellerClientId === caller.clientId && caller.scopes.includes(ANSWER_SCOPE)) return 'seller';
  return undefined;
}

/** The enquiry if `caller` may see it (as `only` when given), else NOT_FOUND. */
async function requireEnquiry(caller: Caller, id: string, deps: EnquiryDependencies, only?: Side): Promise<EnquiryRecord> {
  const record = await getEnquiry(deps.table, id);
  const side = record === undefined ? undefined : sideOf(caller, record);
  if (record === undefined || side === undefined || (only !== undefined && side !== only)) throw new AppError('NOT_FOUND', ENQUIRY_NOT_FOUND_MESSAGE);
  return record;
}

export async function readEnquiry(caller: Caller, id: string, deps: EnquiryDependencies): Promise<Enquiry> {
  return publicEnquiry(await requireEnquiry(caller, id, deps));
}

export interface ListQuery {
  role: Side;
  status: EnquiryStatus | undefined;
  size: number;
  cursor: string | undefined;
}

/** `role`, `status`, `size` (1-100, clamped) and `cursor` of GET /open/v1/enquiries. */
export function parseListQuery(params: Readonly<Record<string, string | undefined>> | undefined): ListQuery {
  const role = params?.role || 'broker';
  if (role !== 'broker' && role !== 'seller') throw invalidParameter('role', 'must be broker or seller');
  const status = params?.status || undefined;
  if (status !== undefined && !(ENQUIRY_STATUSES as readonly string[]).includes(status)) throw invalidParameter('status', `must be one of ${ENQUIRY_STATUSES.join(', ')}`);
  const rawSize = params?.size || undefined;
  if (rawSize !== undefined && !/^[+-]?\d{1,10}$/.test(rawSize)) throw invalidParameter('size', 'must be an integer');
  const size = rawSize === undefined ? DEFAULT_SIZE : Math.min(MAX_SIZE, Math.max(1, Number(rawSize)));
  const cursor = params?.cursor || undefined;
  if (cursor !== undefined && !/^[A-Za-z0-9_-]{1,1024}$/.test(cursor)) throw invalidParameter('cursor', 'must be the nextCursor of a previous page');
  return { role, status: status as EnquiryStatus | undefined, size, cursor };
}

function decodeCursor(cursor: string, role: Side, clientId: string): Record<string, unknown> {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  const k = key as Record<string, unknown> | undefined;
  const owner = role === 'broker' ? k?.bc : k?.sc;
  if (typeof k !== 'object' || k === null || owner !== clientId || typeof k.pk !== 'string' || typeof k.bs !== 'string') {
    throw invalidParameter('cursor', 'must be the nextCursor of a previous page of the same role');
  }
  return role === 'broker' ? { pk: k.pk, bc: k.bc, bs: k.bs } : { pk: k.pk, sc: k.sc, bs: k.bs };
}

export async function listOwnEnquiries(caller: Caller, query: ListQuery, deps: EnquiryDependencies): Promise<{ records: Enquiry[]; nextCursor: string | null }> {
  const scope = query.role === 'broker' ? WRITE_SCOPE : ANSWER_SCOPE;
  if (!caller.scopes.includes(scope)) throw new AppError('PERMISSION_DENIED', `This API key lacks the scope '${scope}' that role=${query.role} requires`);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, query.role, caller.clientId);
  const page = await listEnquiries(deps.table, { role: query.role, clientId: caller.clientId, status: query.status, size: query.size, after });
  return {
    records: page.records.map(publicEnquiry),
    nextCursor: page.next === undefined ? null : Buffer.from(JSON.stringify(page.next)).toString('base64url'),
  };
}

/**
 * A move on a visible enquiry: applied if open (an open one past its `expiresAt` is expired first),
 * answered as it stands if asked again, ENQUIRY_CLOSED otherwise; a concurrent move is judged again.
 */
export async function moveEnquiry(caller: Caller, id: string, move: Move, side: Side, deps: EnquiryDependencies): Promise<Enquiry> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const record = await requireEnquiry(caller, id, deps, side);
    const now = deps.clock();
    if (record.status === 'open' && Date.parse(record.expiresAt) <= now) {
      await expireRecord(record, 'departed', deps);
      continue;
    }
    const verdict = judgeMove(record, move);
    if (verdict === 'same') return publicEnquiry(record);
    if (verdict === 'closed') throw new AppError('ENQUIRY_CLOSED', `This enquiry is ${record.status}: it takes no other answer or withdrawal`);
    const answer = move.kind === 'answer' ? { ...move.answer, answeredAt: new Date(now).toISOString() } : null;
    if ((await closeEnquiry(deps.table, record, move, now, answer)) === 'done') {
      const after = await requireEnquiry(caller, id, deps, side);
      if (move.kind === 'answer') await deps.notify?.([{ type: 'enquiry.answered', enquiry: after }]);
      return publicEnquiry(after);
    }
  }
  throw new AppError('ENQUIRY_CLOSED', 'This enquiry was closed by another request');
}

export function withdrawEnquiry(caller: Caller, id: string, deps: EnquiryDependencies): Promise<Enquiry> {
  return moveEnquiry(caller, id, { kind: 'withdraw' }, 'broker', deps);
}

export function answerEnquiry(caller: Caller, id: string, body: unknown, deps: EnquiryDependencies): Promise<Enquiry> {
  return moveEnquiry(caller, id, { kind: 'answer', answer: parseAnswerBody(body, deps.clock()) }, 'seller', deps);
}

/** Expires an open enquiry (the leg left the listing, or departed): true when this call closed it. */
export async function expireRecord(record: EnquiryRecord, reason: string, deps: Pick<EnquiryDependencies, 'table' | 'clock' | 'notify'>): Promise<boolean> {
  if (record.status !== 'open') return false;
  const now = deps.clock();
  if ((await closeEnquiry(deps.table, record, { kind: 'expire', reason }, now, null)) !== 'done') return false;
  await deps.notify?.([{ type: 'enquiry.expired', enquiry: { ...record, status: 'expired', closedAt: new Date(now).toISOString(), expiredReason: reason } }]);
  return true;
}

import type { Answer, AnsweredAnswer, EnquiryStatus } from './enquiry.js';

/**
 * The lifecycle (docs/enquiries.md, "Lifecycle"): `open` moves once, to `quoted`, `declined`
 * (the seller), `withdrawn` (the broker) or `expired` (the leg left the listing or departed). What
 * a move asked of an enquiry in `status` does: `apply` it, `same` (asked again: nothing changes),
 * or `closed` (ENQUIRY_CLOSED).
 */
export type Move = { kind: 'answer'; answer: Answer } | { kind: 'withdraw' } | { kind: 'expire'; reason: string };
export type Verdict = 'apply' | 'same' | 'closed';

export const CLOSED_STATUSES: readonly EnquiryStatus[] = ['quoted', 'declined', 'withdrawn', 'expired'];

/** True when two answers say the same (their answering instants aside). */
export function sameAnswer(a: Answer | AnsweredAnswer, b: Answer | AnsweredAnswer): boolean {
  if (a.status === 'quoted' && b.status === 'quoted') {
    return a.price === b.price && a.currency === b.currency && a.validUntil === b.validUntil && a.message === b.message;
  }
  if (a.status === 'declined' && b.status === 'declined') return a.reason === b.reason && a.message === b.message;
  return false;
}

export function judgeMove(current: { status: EnquiryStatus; answer: AnsweredAnswer | null }, move: Move): Verdict {
  if (current.status === 'open') return 'apply';
  if (move.kind === 'withdraw') return current.status === 'withdrawn' ? 'same' : 'closed';
  if (move.kind === 'expire') return current.status === 'expired' ? 'same' : 'closed';
  return current.answer !== null && current.status === move.answer.status && sameAnswer(current.answer, move.answer) ? 'same' : 'closed';
}

/** The status a move leads to. */
export function statusAfter(move: Move): EnquiryStatus {
  if (move.kind === 'answer') return move.answer.status;
  return move.kind === 'withdraw' ? 'withdrawn' : 'expired';
}

/** Days a closed enquiry is kept (its contact included) before DynamoDB TTL deletes it. */
export const KEPT_AFTER_CLOSE_DAYS = 90;

/** The TTL (epoch seconds) of an enquiry closed at `closedAtMs`. */
export function deleteAfter(closedAtMs: number): number {
  return Math.floor(closedAtMs / 1000) + KEPT_AFTER_CLOSE_DAYS * 86_400;
}

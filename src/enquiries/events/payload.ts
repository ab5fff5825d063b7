import { createHash } from 'node:crypto';
import { publicEnquiry, type Enquiry } from '../domain/enquiry.js';
import type { EnquiryEvent, EnquiryEventType } from '../use-cases/ports.js';

/**
 * An enquiry's event as POSTed (docs/enquiries.md, "Events"): `{type, timestamp, data: {enquiry}}`,
 * signed as Standard Webhooks says. Its `webhook-id` is the same for one enquiry and type, however
 * often it is queued: a receiver keeps the first and drops the rest.
 */
export interface EnquiryPayload {
  type: EnquiryEventType;
  timestamp: string;
  data: { enquiry: Enquiry };
}

export function eventIdOf(enquiryId: string, type: EnquiryEventType): string {
  return `msg_${createHash('sha256').update(`${enquiryId}\n${type}`).digest('base64url').slice(0, 27)}`;
}

/** When it happened: the enquiry's creation, answer or close. */
function timestampOf(event: EnquiryEvent): string {
  if (event.type === 'enquiry.created') return event.enquiry.createdAt;
  if (event.type === 'enquiry.answered') return event.enquiry.answer?.answeredAt ?? event.enquiry.closedAt ?? event.enquiry.createdAt;
  return event.enquiry.closedAt ?? event.enquiry.createdAt;
}

export function payloadOf(event: EnquiryEvent): EnquiryPayload {
  return { type: event.type, timestamp: timestampOf(event), data: { enquiry: publicEnquiry(event.enquiry) } };
}

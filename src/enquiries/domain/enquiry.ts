/**
 * An enquiry (docs/enquiries.md): a broker's request for one leg, answered by the leg's seller. The
 * stored record and the view both clients see; the view never carries a signing secret (shown once).
 */
export const ENQUIRY_STATUSES = ['open', 'quoted', 'declined', 'withdrawn', 'expired'] as const;
export type EnquiryStatus = (typeof ENQUIRY_STATUSES)[number];

export const DECLINE_REASONS = ['AIRCRAFT_NOT_AVAILABLE', 'SOLD', 'CREW_NOT_AVAILABLE', 'OWNER_DECLINED', 'OTHER'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

export interface Contact {
  name: string;
  email: string;
  phone: string | null;
}

export type Answer =
  | { status: 'quoted'; price: number; currency: string; validUntil: string | null; message: string | null }
  | { status: 'declined'; reason: DeclineReason; message: string | null };

export type AnsweredAnswer = Answer & { answeredAt: string };

export interface EnquiryRecord {
  id: string;
  /** The enquiring client (the broker). */
  clientId: string;
  legId: string;
  source: string;
  /** The seller's client when the enquiry was made. */
  sellerClientId: string;
  status: EnquiryStatus;
  createdAt: string;
  /** When the leg leaves the listing at the latest (its departure passed): the enquiry expires then. */
  expiresAt: string;
  passengers: number;
  contact: Contact;
  message: string | null;
  reference: string | null;
  notifyUrl: string | null;
  /** The broker's signing secret of `notifyUrl`'s events. */
  secret: string | null;
  answer: AnsweredAnswer | null;
  closedAt: string | null;
  /** Why an expired enquiry expired: the leg's withdrawal reason, or `departed`. */
  expiredReason: string | null;
}

/** What both clients see: the record without its clients, source and secret. */
export type Enquiry = Omit<EnquiryRecord, 'clientId' | 'source' | 'sellerClientId' | 'secret'>;

export const ENQUIRY_ID_PATTERN = /^enq_[0-9A-Za-z]{20}$/;

export function publicEnquiry(r: EnquiryRecord): Enquiry {
  return {
    id: r.id,
    legId: r.legId,
    status: r.status,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    passengers: r.passengers,
    contact: r.contact,
    message: r.message,
    reference: r.reference,
    notifyUrl: r.notifyUrl,
    answer: r.answer,
    closedAt: r.closedAt,
    expiredReason: r.expiredReason,
  };
}

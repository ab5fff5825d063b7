import { invalidParameter } from '../../errors.js';
import { DECLINE_REASONS, type Answer, type Contact, type DeclineReason } from './enquiry.js';

/**
 * The request bodies' rules (docs/api.md, "Enquiries"): an enquiry `{passengers, contact, message?,
 * reference?, notifyUrl?}` and an answer (quoted or declined); anything else is INVALID_PARAMETER
 * naming the field. Pure: the leg's seats and the URL's host are checked by the use case.
 */
export const MAX_PASSENGERS = 850;
export const MAX_NAME_LENGTH = 100;
export const MAX_EMAIL_LENGTH = 254;
export const MAX_MESSAGE_LENGTH = 2_000;
export const MAX_REFERENCE_LENGTH = 100;
export const MAX_URL_LENGTH = 2_048;
export const MAX_PRICE = 100_000_000;
export const MAX_BODY_BYTES = 16_384;

/** An address `local@domain.tld` without spaces (the shape, not the mailbox). */
export const EMAIL_PATTERN = /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
/** E.164: `+`, then 8 to 15 digits, the first not 0. */
export const PHONE_PATTERN = /^\+[1-9][0-9]{7,14}$/;
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;

export interface EnquiryBody {
  passengers: number;
  contact: Contact;
  message: string | null;
  reference: string | null;
  notifyUrl: string | null;
}

type Fields = Record<string, unknown>;

function objectOf(value: unknown, name: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidParameter(name, 'must be a JSON object');
  return value as Fields;
}

function onlyFields(fields: Fields, name: string, allowed: readonly string[]): void {
  const unknown = Object.keys(fields).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw invalidParameter(name, `unknown field '${unknown}': it has ${allowed.join(', ')}`);
}

const length = (s: string) => [...s].length;
const hasControl = (s: string) => /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s);

/** An optional text: absent, null or '' is null; else a string of at most `max` characters. */
function optionalText(value: unknown, name: string, max: number): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || length(value) > max || hasControl(value)) throw invalidParameter(name, `must be a string of at most ${max} characters`);
  return value;
}

function contactOf(value: unknown): Contact {
  if (value === undefined) throw invalidParameter('contact', 'is required: {name, email, phone?}');
  const fields = objectOf(value, 'contact');
  onlyFields(fields, 'contact', ['name', 'email', 'phone']);
  const name = typeof fields.name === 'string' ? fields.name.trim() : undefined;
  if (name === undefined || name === '' || length(name) > MAX_NAME_LENGTH || hasControl(name)) {
    throw invalidParameter('contact.name', `must be a string of 1-${MAX_NAME_LENGTH} characters`);
  }
  if (typeof fields.email !== 'string' || fields.email.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(fields.email)) {
    throw invalidParameter('contact.email', 'must be an e-mail address');
  }
  const phone = fields.phone ?? null;
  if (phone !== null && (typeof phone !== 'string' || !PHONE_PATTERN.test(phone))) throw invalidParameter('contact.phone', 'must be a phone number in E.164 form, such as +41221234567');
  return { name, email: fields.email, phone };
}

/** A POST body: the enquiry's fields, every rule checked but the leg's seats and the URL's host. */
export function parseEnquiryBody(body: unknown): EnquiryBody {
  const fields = objectOf(body, 'body');
  onlyFields(fields, 'body', ['passengers', 'contact', 'message', 'reference', 'notifyUrl']);
  const passengers = fields.passengers;
  if (typeof passengers !== 'number' || !Number.isInteger(passengers) || passengers < 1 || passengers > MAX_PASSENGERS) {
    throw invalidParameter('passengers', `must be an integer from 1 to ${MAX_PASSENGERS}`);
  }
  const contact = contactOf(fields.contact);
  const message = optionalText(fields.message, 'message', MAX_MESSAGE_LENGTH);
  const reference = optionalText(fields.reference, 'reference', MAX_REFERENCE_LENGTH);
  const notifyUrl = fields.notifyUrl ?? null;
  if (notifyUrl !== null && (typeof notifyUrl !== 'string' || notifyUrl.length > MAX_URL_LENGTH)) throw invalidParameter('notifyUrl', `must be an https URL of at most ${MAX_URL_LENGTH} characters`);
  return { passengers, contact, message, reference, notifyUrl };
}

/** `passengers` against the leg's seats, when the leg gives them. */
export function checkSeats(passengers: number, seatNum: number | null): void {
  if (seatNum !== null && passengers > seatNum) throw invalidParameter('passengers', `must be at most the leg's seatNum (${seatNum})`);
}

/** An answer body: `{status: "quoted", price, currency, validUntil?, message?}` or `{status: "declined", reason, message?}`. */
export function parseAnswerBody(body: unknown, now: number): Answer {
  const fields = objectOf(body, 'body');
  if (fields.status === 'quoted') {
    onlyFields(fields, 'body', ['status', 'price', 'currency', 'validUntil', 'message']);
    const price = fields.price;
    if (typeof price !== 'number' || !Number.isFinite(price) || price <= 0 || price > MAX_PRICE || Math.round(price * 100) !== price * 100) {
      throw invalidParameter('price', `must be a number above 0 and at most ${MAX_PRICE}, with at most 2 decimals`);
    }
    if (typeof fields.currency !== 'string' || !CURRENCY_PATTERN.test(fields.currency)) throw invalidParameter('currency', 'must be an ISO 4217 code of 3 capital letters, such as EUR');
    let validUntil: string | null = null;
    if (fields.validUntil !== undefined && fields.validUntil !== null) {
      const ms = typeof fields.validUntil === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(fields.validUntil) ? Date.parse(fields.validUntil) : NaN;
      if (!Number.isFinite(ms) || ms <= now) throw invalidParameter('validUntil', 'must be a future instant with its offset, such as 2026-05-01T18:00:00Z');
      validUntil = new Date(ms).toISOString();
    }
    return { status: 'quoted', price, currency: fields.currency, validUntil, message: optionalText(fields.message, 'message', MAX_MESSAGE_LENGTH) };
  }
  if (fields.status === 'declined') {
    onlyFields(fields, 'body', ['status', 'reason', 'message']);
    if (typeof fields.reason !== 'string' || !(DECLINE_REASONS as readonly string[]).includes(fields.reason)) {
      throw invalidParameter('reason', `must be one of ${DECLINE_REASONS.join(', ')}`);
    }
    return { status: 'declined', reason: fields.reason as DeclineReason, message: optionalText(fields.message, 'message', MAX_MESSAGE_LENGTH) };
  }
  throw invalidParameter('status', 'must be quoted or declined');
}

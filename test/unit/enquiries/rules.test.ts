import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AppError } from '../../../src/errors.js';
import { checkSeats, parseAnswerBody, parseEnquiryBody, MAX_MESSAGE_LENGTH, MAX_PASSENGERS } from '../../../src/enquiries/domain/body.js';
import { judgeMove, deleteAfter, KEPT_AFTER_CLOSE_DAYS, type Move } from '../../../src/enquiries/domain/lifecycle.js';
import type { AnsweredAnswer, EnquiryStatus } from '../../../src/enquiries/domain/enquiry.js';
import { canonicalJson, fingerprintOf, keyItemId, parseIdempotencyKey } from '../../../src/enquiries/idempotency/key.js';

/** The enquiries' pure rules (docs/api.md, "Enquiries"): the bodies, the Idempotency-Key, the lifecycle. */
const NOW = Date.parse('2030-01-01T00:00:00Z');
const contact = { name: 'Ada Broker', email: 'ada@example.com' };

function refusal(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return `${err.code} ${/'([^']+)'/.exec(err.message)?.[1] ?? ''}`;
  }
}

describe('the enquiry body', () => {
  it('takes the documented fields, optional ones as null', () => {
    expect(parseEnquiryBody({ passengers: 4, contact })).toEqual({ passengers: 4, contact: { ...contact, phone: null }, message: null, reference: null, notifyUrl: null });
    expect(parseEnquiryBody({ passengers: 1, contact: { ...contact, phone: '+41221234567' }, message: 'x'.repeat(MAX_MESSAGE_LENGTH), reference: 'R-1' }).contact.phone).toBe('+41221234567');
  });

  it.each([
    [{ passengers: 0, contact }, 'passengers'],
    [{ passengers: MAX_PASSENGERS + 1, contact }, 'passengers'],
    [{ passengers: 2.5, contact }, 'passengers'],
    [{ passengers: '4', contact }, 'passengers'],
    [{ passengers: 4 }, 'contact'],
    [{ passengers: 4, contact: { ...contact, name: ' ' } }, 'contact.name'],
    [{ passengers: 4, contact: { ...contact, name: 'n'.repeat(101) } }, 'contact.name'],
    [{ passengers: 4, contact: { ...contact, email: 'ada@' } }, 'contact.email'],
    [{ passengers: 4, contact: { ...contact, email: 'ada example.com' } }, 'contact.email'],
    [{ passengers: 4, contact: { ...contact, phone: '0041221234567' } }, 'contact.phone'],
    [{ passengers: 4, contact: { ...contact, phone: '+0221234567' } }, 'contact.phone'],
    [{ passengers: 4, contact: { ...contact, fax: '1' } }, 'contact'],
    [{ passengers: 4, contact, message: 'x'.repeat(MAX_MESSAGE_LENGTH + 1) }, 'message'],
    [{ passengers: 4, contact, reference: 'r'.repeat(101) }, 'reference'],
    [{ passengers: 4, contact, notifyUrl: 42 }, 'notifyUrl'],
    [{ passengers: 4, contact, price: 1 }, 'body'],
    [[], 'body'],
  ])('refuses %j naming %s', (body, parameter) => {
    expect(refusal(() => parseEnquiryBody(body))).toBe(`INVALID_PARAMETER ${parameter}`);
  });

  it("passengers at most the leg's seats, when it has them", () => {
    expect(refusal(() => checkSeats(8, 8))).toBeUndefined();
    expect(refusal(() => checkSeats(850, null))).toBeUndefined();
    expect(refusal(() => checkSeats(9, 8))).toBe('INVALID_PARAMETER passengers');
  });
});

describe('the answer body', () => {
  it('a quote: price above 0 with at most 2 decimals, an ISO currency, a future validUntil', () => {
    expect(parseAnswerBody({ status: 'quoted', price: 12500.5, currency: 'EUR', validUntil: '2030-01-02T10:00:00+01:00' }, NOW)).toEqual({
      status: 'quoted',
      price: 12500.5,
      currency: 'EUR',
      validUntil: '2030-01-02T09:00:00.000Z',
      message: null,
    });
    expect(refusal(() => parseAnswerBody({ status: 'quoted', price: 0, currency: 'EUR' }, NOW))).toBe('INVALID_PARAMETER price');
    expect(refusal(() => parseAnswerBody({ status: 'quoted', price: 1.001, currency: 'EUR' }, NOW))).toBe('INVALID_PARAMETER price');
    expect(refusal(() => parseAnswerBody({ status: 'quoted', price: 1, currency: 'eur' }, NOW))).toBe('INVALID_PARAMETER currency');
    expect(refusal(() => parseAnswerBody({ status: 'quoted', price: 1, currency: 'EUR', validUntil: '2029-12-31T23:59:59Z' }, NOW))).toBe('INVALID_PARAMETER validUntil');
    expect(refusal(() => parseAnswerBody({ status: 'quoted', price: 1, currency: 'EUR', validUntil: '2030-01-02' }, NOW))).toBe('INVALID_PARAMETER validUntil');
    expect(refusal(() => parseAnswerBody({ status: 'quoted', price: 1, currency: 'EUR', reason: 'SOLD' }, NOW))).toBe('INVALID_PARAMETER body');
  });

  it('a decline: one of the five reasons', () => {
    for (const reason of ['AIRCRAFT_NOT_AVAILABLE', 'SOLD', 'CREW_NOT_AVAILABLE', 'OWNER_DECLINED', 'OTHER']) {
      expect(parseAnswerBody({ status: 'declined', reason }, NOW)).toEqual({ status: 'declined', reason, message: null });
    }
    expect(refusal(() => parseAnswerBody({ status: 'declined', reason: 'PRICE' }, NOW))).toBe('INVALID_PARAMETER reason');
    expect(refusal(() => parseAnswerBody({ status: 'open' }, NOW))).toBe('INVALID_PARAMETER status');
  });
});

describe('the Idempotency-Key', () => {
  it('is required, 1-255 printable ASCII characters', () => {
    expect(refusal(() => parseIdempotencyKey({}))).toBe('INVALID_PARAMETER Idempotency-Key');
    expect(refusal(() => parseIdempotencyKey({ 'idempotency-key': '' }))).toBe('INVALID_PARAMETER Idempotency-Key');
    expect(refusal(() => parseIdempotencyKey({ 'idempotency-key': 'k'.repeat(256) }))).toBe('INVALID_PARAMETER Idempotency-Key');
    expect(refusal(() => parseIdempotencyKey({ 'idempotency-key': 'caf\u00e9' }))).toBe('INVALID_PARAMETER Idempotency-Key');
    expect(parseIdempotencyKey({ 'idempotency-key': 'k'.repeat(255) })).toHaveLength(255);
  });

  it('the same body in any key order has one fingerprint; another body or leg another', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (body) => {
        const reversed = Object.fromEntries(Object.entries(body).reverse());
        expect(fingerprintOf('leg', reversed)).toBe(fingerprintOf('leg', body));
        expect(fingerprintOf('leg2', body)).not.toBe(fingerprintOf('leg', body));
        expect(canonicalJson(JSON.parse(canonicalJson(body)))).toBe(canonicalJson(body));
      }),
    );
    expect(fingerprintOf('leg', { passengers: 4 })).not.toBe(fingerprintOf('leg', { passengers: 5 }));
  });

  it('is per client, and never stored as given', () => {
    expect(keyItemId('cli_a', 'k')).not.toBe(keyItemId('cli_b', 'k'));
    expect(keyItemId('cli_a', 'my-secret-order-42')).not.toContain('my-secret-order-42');
  });
});

describe('the lifecycle', () => {
  const quote: AnsweredAnswer = { status: 'quoted', price: 100, currency: 'EUR', validUntil: null, message: null, answeredAt: '2030-01-01T00:00:00.000Z' };
  const decline: AnsweredAnswer = { status: 'declined', reason: 'SOLD', message: null, answeredAt: '2030-01-01T00:00:00.000Z' };
  const moves: Move[] = [{ kind: 'withdraw' }, { kind: 'expire', reason: 'sold' }, { kind: 'answer', answer: quote }, { kind: 'answer', answer: decline }];
  const states: { status: EnquiryStatus; answer: AnsweredAnswer | null }[] = [
    { status: 'open', answer: null },
    { status: 'quoted', answer: quote },
    { status: 'declined', answer: decline },
    { status: 'withdrawn', answer: null },
    { status: 'expired', answer: null },
  ];

  it('open takes every move; a closed enquiry takes again only the move that closed it, and refuses every other', () => {
    const table = states.map((s) => [s.status, moves.map((m) => judgeMove(s, m))]);
    expect(table).toEqual([
      ['open', ['apply', 'apply', 'apply', 'apply']],
      ['quoted', ['closed', 'closed', 'same', 'closed']],
      ['declined', ['closed', 'closed', 'closed', 'same']],
      ['withdrawn', ['same', 'closed', 'closed', 'closed']],
      ['expired', ['closed', 'same', 'closed', 'closed']],
    ]);
  });

  it('a different quote is not the same answer', () => {
    expect(judgeMove({ status: 'quoted', answer: quote }, { kind: 'answer', answer: { ...quote, price: 99 } })).toBe('closed');
    expect(judgeMove({ status: 'quoted', answer: quote }, { kind: 'answer', answer: { status: 'quoted', price: 100, currency: 'EUR', validUntil: null, message: null } })).toBe('same');
  });

  it('a closed enquiry is deleted 90 days after it closed', () => {
    expect(deleteAfter(NOW)).toBe(NOW / 1000 + KEPT_AFTER_CLOSE_DAYS * 86_400);
  });
});

import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { readVerdict } from '../../src/auth/verdict.js';
import { parseIfNoneMatch, weakTag } from '../../src/http/conditional.js';
import { BURST_BOUNDS, MAX_RATE_LIMIT, RATE_BOUNDS, policyWindowSeconds, rateLimitField, rateLimitPolicyField } from '../../src/keys/rate-limit.js';
import { parseListQuery } from '../../src/legs/query.js';
import { errorsOf } from '../support/import-records.js';
import { loadOpenApi } from '../support/contract.js';

/**
 * The bounds docs/openapi.yaml states (the OWASP lint asks every string and integer for one) are
 * what the code does: each is checked against the parser, the import rules or the header writers.
 */
const doc = loadOpenApi();

interface Schema {
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}
const parameter = (name: string) => (doc.components.parameters[name] as { schema: Schema }).schema;
const header = (name: string) => ((doc.components as unknown as { headers: Record<string, { schema: Schema }> }).headers[name]!).schema;
const property = (schema: string, name: string) =>
  (doc.components.schemas[schema]!.properties as Record<string, Schema>)[name]!;
const regex = (s: Schema) => new RegExp(s.pattern!, 'u');

/** The parameter's value as the listing parses it, or the INVALID_PARAMETER message. */
function parsed(query: Record<string, string>): unknown {
  try {
    return parseListQuery(query);
  } catch (err) {
    return (err as Error).message;
  }
}

describe('the query parameters: the bounds are the parser\'s', () => {
  it.each(['page', 'size'] as const)('%s: the schema gives the values in effect; outside them the value is clamped, not refused', (name) => {
    const { minimum, maximum } = parameter(name);
    expect(parseListQuery({ [name]: '-1' })[name]).toBe(minimum);
    expect(parseListQuery({ [name]: '0' })[name]).toBe(minimum);
    expect(parseListQuery({ [name]: String(maximum) })[name]).toBe(maximum);
    expect(parseListQuery({ [name]: '9'.repeat(40) })[name]).toBe(maximum);
    expect(Number.isSafeInteger(maximum)).toBe(true);
  });

  it('the response\'s page and size stay within the schema of Page', () => {
    const page = property('Page', 'page');
    const size = property('Page', 'size');
    expect([page.minimum, page.maximum]).toEqual([parameter('page').minimum, parameter('page').maximum]);
    expect([size.minimum, size.maximum]).toEqual([parameter('size').minimum, parameter('size').maximum]);
  });

  it.each([
    ['offsetDays', { depDate: '2026-12-01' }],
    ['depRadiusKm', { depNear: 'EGLL' }],
    ['arrRadiusKm', { arrNear: 'LFMN' }],
    ['minSeats', {}],
  ] as const)('%s: a value out of the schema\'s range is refused, its ends are accepted', (name, needs) => {
    const { minimum, maximum } = parameter(name);
    const at = (value: number) => parsed({ ...needs, [name]: String(value) });
    expect((at(minimum!) as Record<string, unknown>)[name]).toBe(minimum);
    expect((at(maximum!) as Record<string, unknown>)[name]).toBe(maximum);
    expect(at(minimum! - 1)).toContain(`'${name}'`);
    expect(at(maximum! + 1)).toContain(`'${name}'`);
  });

  it.each(['depAirportCode', 'arrAirportCode', 'depNear', 'arrNear'])('%s: the lengths the schema allows are the ones parsed', (name) => {
    const { minLength, maxLength } = parameter(name);
    for (let length = 1; length <= 6; length++) {
      const inSchema = length >= minLength! && length <= maxLength!;
      const result = parsed({ [name]: 'A'.repeat(length) });
      // depNear/arrNear also need the code to be an airport's: a refusal then names the airport, not the syntax.
      if (inSchema) expect(String(result)).not.toContain('must be a 4-letter ICAO or 3-letter IATA code');
      else expect(result).toContain('must be a 4-letter ICAO or 3-letter IATA code');
    }
  });

  it('depDate: only a 10-character date is accepted', () => {
    expect(parameter('depDate').maxLength).toBe(10);
    expect(parsed({ depDate: '2026-12-01' })).toHaveProperty('depDate', '2026-12-01');
    expect(parsed({ depDate: '+002026-12-01' })).toContain("'depDate'");
  });

  it('aircraftType: an empty item is refused, as the pattern says', () => {
    const pattern = regex(parameter('aircraftType'));
    for (const value of ['Light Jet', 'light-jet,HEAVY JETS', 'Light Jet,', ',Light Jet', 'Light Jet,,Heavy Jet']) {
      const refused = typeof parsed({ aircraftType: value }) === 'string';
      expect({ value, matches: pattern.test(value) }).toEqual({ value, matches: !refused });
    }
  });
});

describe('If-None-Match: the pattern is the values that take effect', () => {
  const pattern = regex(parameter('ifNoneMatch'));
  // Characters a header value may hold (RFC 9110 §5.5: VCHAR, obs-text, SP, HTAB), weighted towards the syntax.
  const pieces = fc.oneof(
    fc.constantFrom('"', 'W/', '*', ',', ' ', '\t', '\u00a0', 'W', '/', 'a'),
    fc.constant(weakTag(new Uint8Array(16))),
    fc.constant('"x3Sk0q1bS8y6VZpDq2rN0A"'),
    fc.integer({ min: 0x21, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)),
  );

  it('matches exactly the values parseIfNoneMatch reads (others are ignored)', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join('')), (value) => {
        expect({ value, matches: pattern.test(value) }).toEqual({ value, matches: parseIfNoneMatch(value) !== undefined });
      }),
      { numRuns: 3000 },
    );
  });

  it('matches the ETag the API sends, its strong form, lists and the wildcard', () => {
    const tag = weakTag(new Uint8Array(16));
    expect(tag).toMatch(regex(header('ETag')));
    expect(tag.length).toBeLessThanOrEqual(header('ETag').maxLength!);
    for (const value of [tag, tag.slice(2), `${tag}, "other"`, ' * ']) expect(value).toMatch(pattern);
  });
});

describe('the rate-limit headers: the patterns hold at the extremes of a key\'s limit', () => {
  const limits = [
    { rate: RATE_BOUNDS.min, burst: BURST_BOUNDS.max },
    { rate: RATE_BOUNDS.max, burst: BURST_BOUNDS.min },
    MAX_RATE_LIMIT,
    { rate: 0.11, burst: 9999 },
  ];

  it.each(limits)('RateLimit-Policy and RateLimit for %j', (limit) => {
    const policy = rateLimitPolicyField(limit);
    const window = policyWindowSeconds(limit);
    const left = rateLimitField(limit.burst, window);
    for (const [value, schema] of [
      [policy, header('RateLimit-Policy')],
      [left, header('RateLimit')],
    ] as const) {
      expect(value).toMatch(regex(schema));
      expect(value.length).toBeLessThanOrEqual(schema.maxLength!);
    }
    expect(String(window)).toMatch(regex(header('Retry-After')));
  });

  it('a Retry-After longer than the schema allows never reaches a header', () => {
    const refused = (retryAfter: string) =>
      readVerdict({ verdict: 'error', errorCode: 'RATE_LIMITED', message: 'over', retryAfter }).headers['retry-after'];
    expect(refused('100000')).toBe('100000');
    expect(refused('1'.repeat(header('Retry-After').maxLength! + 1))).toBeUndefined();
  });
});

describe('EmptyLeg: the text bounds are the import\'s', () => {
  it.each([
    ['Amenity', 'amenityName'],
    ['Amenity', 'amenityDesc'],
    ['EmptyLeg', 'aircraftImg'],
  ] as const)('%s.%s: maxLength is accepted, one more refused', (schema, name) => {
    const max = property(schema, name).maxLength!;
    const value = (length: number) =>
      name === 'aircraftImg' ? `https://images.example.com/${'a'.repeat(length - 'https://images.example.com/'.length)}` : 'a'.repeat(length);
    const patch = (length: number) =>
      name === 'aircraftImg'
        ? { aircraftImg: value(length) }
        : { amenities: [{ amenityType: 'wifi', amenityName: 'Wi-Fi', amenityDesc: 'Fast', [name]: value(length) }] };
    expect(errorsOf(patch(max))).toEqual([]);
    expect(errorsOf(patch(max + 1)).join('\n')).toContain(`at most ${max} characters`);
  });
});

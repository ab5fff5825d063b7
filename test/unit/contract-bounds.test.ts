// @dateIndependent: signs at a fixed far instant to bound the header's length; no date is judged.
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { AirportIndex } from '../../src/airports/reference.js';
import { parseChangesQuery } from '../../src/changes/feed.js';
import { readWatchesConfig } from '../../src/config.js';
import { readVerdict } from '../../src/auth/verdict.js';
import { parseIfNoneMatch, weakTag } from '../../src/http/conditional.js';
import { BURST_BOUNDS, MAX_RATE_LIMIT, RATE_BOUNDS, policyWindowSeconds, rateLimitField, rateLimitPolicyField } from '../../src/keys/limits/rate-limit.js';
import { parseListQuery } from '../../src/listing/query.js';
import { deliveryIdOf, retryDelaySeconds } from '../../src/watches/delivery.js';
import { answeredFilters, INTEGER_FILTERS, parseWatchFilters, WATCH_FILTER_FIELDS } from '../../src/watches/filters.js';
import { postWebhook } from '../../src/watches/post.js';
import { generateSecret, MAX_BODY_BYTES, MAX_DESCRIPTION_LENGTH, parseWatchBody, parseWatchId } from '../../src/watches/resource.js';
import { MAX_URL_LENGTH } from '../../src/watches/target.js';
import { webhookHeaders } from '../../src/watches/attempt.js';
import { parseDeliveryId, testEventId } from '../../src/watch-admin/send-now.js';
import { FUNCTIONS } from '../../src/function-table.js';
import { errorsOf } from '../support/import-records.js';
import { loadOpenApi } from '../support/contract.js';

/**
 * The bounds docs/openapi.yaml states (the OWASP lint asks every string and integer for one) are
 * what the code does: each is checked against the parser, the import rules or the header writers.
 */
const doc = loadOpenApi();

interface Schema {
  type?: string | string[];
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
const webhookHeader = (name: string) => {
  const refs = (doc as unknown as { webhooks: Record<string, { post: { parameters: { $ref: string }[] } }> }).webhooks.emptyLegEvent!.post.parameters;
  const found = refs.map((r) => doc.components.parameters[r.$ref.split('/').at(-1)!] as { name: string; schema: Schema }).find((p) => p.name === name);
  return found!.schema;
};

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
    ['maxAgeHours', {}],
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

  it.each([
    ['source', ['acme-air', ' acme-air , jets-4-u', 'Acme', 'acme air', 'acme,', ',acme', '-acme', 'a'.repeat(40), 'a'.repeat(41)]],
    ['kind', ['operator', 'broker, operator', 'unknown', 'Broker', 'operator,', 'operator,broker,broker']],
  ] as const)('%s: the pattern is what the parser reads (up to the count of ids)', (name, values) => {
    const pattern = regex(parameter(name));
    for (const value of values) {
      const refused = typeof parsed({ [name]: value }) === 'string';
      expect({ value, matches: pattern.test(value) }).toEqual({ value, matches: !refused });
    }
    expect(parameter(name).maxLength).toBe(10240);
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

describe('the change feed: the bounds are its parser\'s', () => {
  const changes = (doc.paths['/open/v1/empty-legs/changes']!.get as unknown as { parameters: { name: string; schema: Schema }[] }).parameters;
  const schemaOf = (name: string) => changes.find((p) => p.name === name)!.schema;

  it('size: the schema gives the values in effect; outside them the value is clamped, not refused', () => {
    const { minimum, maximum } = schemaOf('size');
    expect(parseChangesQuery({ size: '-1' }, 'k').size).toBe(minimum);
    expect(parseChangesQuery({ size: '0' }, 'k').size).toBe(minimum);
    expect(parseChangesQuery({ size: String(maximum) }, 'k').size).toBe(maximum);
    expect(parseChangesQuery({ size: '9'.repeat(40) }, 'k').size).toBe(maximum);
    expect(() => parseChangesQuery({ size: '1.5' }, 'k')).toThrow("'size'");
  });

  it('after: one character over maxLength is refused', () => {
    expect(() => parseChangesQuery({ after: 'A'.repeat(schemaOf('after').maxLength! + 1) }, 'k')).toThrow("'after'");
  });
});

// The document's schemas, as the e2e contract check compiles them (ajv, JSON Schema 2020-12, formats).
type FormatsPlugin = (a: Ajv2020) => unknown;
const formatsDefault = (ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } }).default;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
(typeof formatsDefault === 'function' ? formatsDefault : formatsDefault.default)(ajv);
ajv.addSchema(doc, 'openapi');
const validFilters = ajv.compile({ $ref: 'openapi#/components/schemas/WatchFilters' });

describe('watches: the bounds are the body parser\'s', () => {
  const airports = new AirportIndex([]);
  const filterSchema = (name: string) => (doc.components.schemas.WatchFilters!.properties as Record<string, Schema>)[name]!;
  const integerValue = fc.oneof(
    fc.integer({ min: -20, max: 1100 }),
    fc.constantFrom('', '0', '-0', '+3', '003', '15', '16', '850', '851', '1000', '1001', '1.5', ' 3', '3 ', 'x', `${'0'.repeat(50)}7`),
    fc.integer({ min: -20, max: 1100 }).map(String),
  );
  const textValue = fc.oneof(
    fc.constantFrom('', ' ', 'LFPB', 'lbg', 'EGL', 'EGLLX', ' LFPB', 'Light Jet', 'light jet,heavy-jet', 'Light Jet,', ',x', 'Glider'),
    fc.constantFrom('2026-11-21', '2026-02-30', '+02026-11-21', '2026-1-21', ' Paris ', 'x', 'São Paulo', `  ${'Zürich'}  `),
    fc.constantFrom('EUR', 'eur', '15000', '15000.5', '0.125', 'true', 'false'),
    fc.string({ maxLength: 12 }),
  );
  const filtersArb = fc.dictionary(
    fc.constantFrom(...WATCH_FILTER_FIELDS.filter((f) => f !== 'depNear' && f !== 'arrNear')),
    fc.constant(null),
    { maxKeys: 4 },
  ).chain((keys) =>
    fc.record(Object.fromEntries(Object.keys(keys).map((k) => [k, INTEGER_FILTERS.has(k) ? integerValue : textValue]))),
  );

  it('the filters answered as numbers are the integer ones of WatchFilters, which are the listing\'s integer parameters', () => {
    const integers = Object.entries(doc.components.schemas.WatchFilters!.properties as Record<string, { type?: string | string[] }>)
      .filter(([, schema]) => [schema.type ?? []].flat().includes('integer'))
      .map(([name]) => name);
    expect([...INTEGER_FILTERS].sort()).toEqual(integers.sort());
    for (const name of integers) expect([parameter(name).type].flat()).toContain('integer');
  });

  it('filters the API accepts are valid WatchFilters, as sent and as answered; a value off a pattern is refused', () => {
    fc.assert(
      fc.property(filtersArb, (filters) => {
        let stored: Record<string, string> | undefined;
        try {
          stored = { ...parseWatchFilters(filters, () => airports).stored };
        } catch {
          stored = undefined;
        }
        if (stored !== undefined) {
          expect({ filters, sent: validFilters(filters) }).toEqual({ filters, sent: true });
          const answered = answeredFilters(stored);
          expect({ answered, valid: validFilters(answered) }).toEqual({ answered, valid: true });
        }
        for (const [name, value] of Object.entries(filters)) {
          const { pattern } = filterSchema(name);
          if (typeof value === 'string' && pattern !== undefined && !new RegExp(pattern, 'u').test(value)) {
            expect(() => parseWatchFilters({ [name]: value }, () => airports)).toThrow(`'${name}'`);
          }
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('the integer filters have the listing parameters\' ranges; a string filter is bounded by the body', () => {
    for (const name of INTEGER_FILTERS) {
      const { minimum, maximum, maxLength } = filterSchema(name);
      expect([minimum, maximum]).toEqual([parameter(name).minimum, parameter(name).maximum]);
      expect(maxLength).toBe(MAX_BODY_BYTES);
    }
    for (const name of ['depCityName', 'arrCityName', 'aircraftType']) expect(filterSchema(name).maxLength).toBe(MAX_BODY_BYTES);
    // Blanks around a city name are kept, and take no part in its 2-100 characters.
    expect(parseWatchFilters({ depCityName: `${' '.repeat(300)}Paris` }, () => airports).stored.depCityName).toHaveLength(305);
  });

  it('url and description: maxLength is accepted, one more refused', () => {
    const body = (fields: Record<string, unknown>) => () => parseWatchBody({ url: 'https://hooks.example.com/x', ...fields }, { airports: () => airports, targets: 'public' });
    const url = (length: number) => `https://hooks.example.com/${'a'.repeat(length - 'https://hooks.example.com/'.length)}`;
    for (const schema of ['WatchInput', 'Watch', 'CreatedWatch']) {
      expect(property(schema, 'url').maxLength).toBe(MAX_URL_LENGTH);
      expect(property(schema, 'description').maxLength).toBe(MAX_DESCRIPTION_LENGTH);
    }
    expect(body({ url: url(MAX_URL_LENGTH) })).not.toThrow();
    expect(body({ url: url(MAX_URL_LENGTH + 1) })).toThrow("'url'");
    expect(body({ description: 'é'.repeat(MAX_DESCRIPTION_LENGTH) })).not.toThrow();
    expect(body({ description: 'é'.repeat(MAX_DESCRIPTION_LENGTH + 1) })).toThrow("'description'");
    // Stored and answered as the URL parser serializes it, within the same bound once serialized.
    expect(body({ url: ' https://hooks.example.com/a b' })().url).toBe('https://hooks.example.com/a%20b');
    expect(body({ url: `https://hooks.example.com/${'é'.repeat(400)}` })).toThrow("'url': must be at most 2048 characters once serialized");
  });

  it('watch ids, secrets and delivery ids match their schemas', () => {
    const id = property('Watch', 'id');
    expect(() => parseWatchId('wat_' + 'a'.repeat(20))).not.toThrow();
    for (const bad of ['wat_' + 'a'.repeat(19), 'wat_' + 'a'.repeat(21)]) expect(() => parseWatchId(bad)).toThrow("'id'");
    expect([id.minLength, id.maxLength]).toEqual([24, 24]);
    expect(parameter('watchId')).toEqual(expect.objectContaining({ pattern: id.pattern, minLength: 24, maxLength: 24 }));
    for (let i = 0; i < 50; i++) {
      const secret = generateSecret();
      expect(secret).toMatch(regex(property('CreatedWatch', 'secret')));
      expect(secret.length).toBeLessThanOrEqual(property('CreatedWatch', 'secret').maxLength!);
      const signature = new Webhook(secret).sign(`msg_${i}`, new Date(8.64e15), '{}');
      expect(signature).toMatch(regex(webhookHeader('webhook-signature')));
      // During a rotation's overlap: two signatures.
      const both = webhookHeaders({ secret, previousSecret: generateSecret(), previousSecretExpiresAt: new Date(8.64e15).toISOString() }, `msg_${i}`, 8.64e15 - 1, '{}');
      expect(both['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(both['webhook-signature']).toMatch(regex(webhookHeader('webhook-signature')));
      expect(both['webhook-signature']!.length).toBeLessThanOrEqual(webhookHeader('webhook-signature').maxLength!);
    }
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (watchId, legId, changedAt) => {
        const delivery = deliveryIdOf(watchId, { id: legId, changedAt, before: null, after: null }, 'empty_leg.listed');
        expect(delivery).toMatch(regex(property('Delivery', 'id')));
        expect(delivery).toMatch(regex(webhookHeader('webhook-id')));
        expect(delivery.length).toBe(property('Delivery', 'id').maxLength);
      }),
    );
  });

  it("a test event's webhook-id and a delivery id in a path have a delivery id's shape; an attempt lasts less than its function may", () => {
    for (let i = 0; i < 50; i++) expect(testEventId()).toMatch(regex(webhookHeader('webhook-id')));
    expect(parameter('deliveryId')).toEqual(expect.objectContaining({ pattern: property('Delivery', 'id').pattern, minLength: 31, maxLength: 31 }));
    expect(() => parseDeliveryId('msg_' + 'a'.repeat(27))).not.toThrow();
    for (const bad of ['msg_' + 'a'.repeat(26), 'msg_' + 'a'.repeat(28), 'wat_' + 'a'.repeat(27)]) expect(() => parseDeliveryId(bad)).toThrow("'deliveryId'");
    expect(FUNCTIONS.watchAdmin.timeoutSeconds * 1000).toBeLessThanOrEqual(property('Attempt', 'durationMs').maximum!);
  });

  it('instants are toISOString of a time a Date holds: 24 characters; webhook-timestamp at most 13 digits', () => {
    const instant = property('Watch', 'createdAt');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.parse('9999-12-31T23:59:59.999Z') }), (ms) => {
        const text = new Date(ms).toISOString();
        expect(text).toMatch(regex(instant));
        expect(text.length).toBeLessThanOrEqual(instant.maxLength!);
      }),
    );
    // A later instant has no RFC 3339 form (toISOString writes `+010000-...`); past 8.64e15 ms it throws.
    expect(() => new Date(8.64e15 + 1).toISOString()).toThrow(RangeError);
    const seconds = String(Math.floor(8.64e15 / 1000));
    expect(seconds).toMatch(regex(webhookHeader('webhook-timestamp')));
    expect(seconds).toHaveLength(webhookHeader('webhook-timestamp').maxLength!);
  });

  it("attempts: the queue's at most one plus the longest retry schedule a stage may set; replays add one each, so int32's bound", () => {
    const longest = Array.from({ length: 20 }, () => '0').join(',');
    const schedule = readWatchesConfig({ WEBHOOK_RETRY_SCHEDULE: longest }).retryScheduleSeconds;
    expect(() => readWatchesConfig({ WEBHOOK_RETRY_SCHEDULE: `${longest},0` })).toThrow('WEBHOOK_RETRY_SCHEDULE');
    // After attempt number n the retry is retryDelaySeconds(schedule, n): none after the 21st.
    expect(retryDelaySeconds(schedule, 20, () => 0)).toBeDefined();
    expect(retryDelaySeconds(schedule, 21, () => 0)).toBeUndefined();
    expect(property('Delivery', 'attempts').maximum).toBe(2 ** 31 - 1);
  });

  it.each([
    ['000', 0],
    ['999', 999],
    ['1000', undefined],
  ] as const)('responseCode: a response with status %s is recorded as %s', async (code, recorded) => {
    const server = createServer((socket) => socket.once('data', () => socket.end(`HTTP/1.1 ${code} X\r\nContent-Length: 0\r\n\r\n`)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const outcome = await postWebhook(new URL(`http://127.0.0.1:${port}/`), { address: '127.0.0.1', family: 4 }, {}, '{}', { timeoutMs: 5000, maxResponseBytes: 4096 });
      expect(outcome.status).toBe(recorded);
      const { minimum, maximum } = property('Delivery', 'responseCode');
      if (recorded !== undefined) expect([minimum, maximum]).toEqual([0, 999]);
    } finally {
      server.close();
    }
  });
});

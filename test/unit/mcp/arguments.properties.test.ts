import { describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { AppError } from '../../../src/errors.js';
import { LIST_QUERY_FIELDS, PARAMETER_SHAPES, parseListQuery } from '../../../src/listing/index.js';
import { OPENAPI_DOCUMENT_JSON } from '../../../src/contract/index.js';
import { includeOf } from '../../../src/http/include.js';
import { argumentTexts, SEARCH_SHAPES, SEARCH_TYPES, searchInputSchema, typesOf } from '../../../src/mcp/arguments.js';
import { LEG_SHAPES, TOOLS } from '../../../src/mcp/tools.js';
import { flightLookupFor } from '../../../src/leg-by-id/index.js';
import { GROUPS } from '../../../src/flights/index.js';
import { SORTS } from '../../../src/listing/query.js';
import { fcParams } from '../../support/fast-check.js';

/**
 * search_empty_legs' input schema against the listing's parser, on random parameter sets: what the
 * tool accepts (the arguments read as texts, then parseListQuery) the schema accepts; what the schema
 * accepts the tool accepts too, unless the refusal is a rule JSON Schema does not state: a
 * parameter whose shape is not exact (a city name's trimming, a list's members) or a rule between
 * parameters ("requires ...").
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
const schemaAccepts = ajv.compile(searchInputSchema());

type Outcome = { ok: true } | { ok: false; parameter: string; message: string };
function toolOutcome(args: Record<string, unknown>): Outcome {
  try {
    // As the list route reads them: the listing's parameters, then `include`.
    const texts = argumentTexts(args, SEARCH_TYPES);
    parseListQuery(texts);
    includeOf(texts);
    return { ok: true };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'INVALID_PARAMETER') throw err;
    const parameter = /^Invalid parameter '([^']+)'/.exec(err.message)?.[1] ?? '';
    return { ok: false, parameter, message: err.message };
  }
}
/** The query parameters of a GET in the contract (docs/openapi.yaml). */
function contractQueryParameters(path: string): string[] {
  type Parameter = { name: string; in: string };
  const doc = JSON.parse(OPENAPI_DOCUMENT_JSON) as { paths: Record<string, { get: { parameters: { $ref: string }[] } }>; components: { parameters: Record<string, Parameter> } };
  const parameters = doc.paths[path]!.get.parameters.map((p) => doc.components.parameters[p.$ref.split('/').pop()!]!);
  return parameters.filter((p) => p.in === 'query').map((p) => p.name);
}
const BETWEEN_PARAMETERS = /\brequires?\b|must not be above/;

const TEXTS = [
  '', ' ', 'a', 'ab', ' Nice ', 'São Paulo', 'x'.repeat(101), '2026-12-20', '2024-02-29', '2026-02-30', '0000-01-01', '2026-1-01',
  'LFPB', 'nce', 'EG1', 'ABCDE', 'ZZZZ', 'FR', 'fr, it', ' gb ', 'FR,', ',FR', 'XX', 'EU,AS', 'eu', 'ZZ', 'Light Jet,heavy-jet', 'VLJ', 'Heavy Jets',
  'EUR', 'eur', 'USD', 'provenance', 'departure,provenance', 'provenance,provenance', 'provenance,', 'Departure', 'true', 'false', '12', '-3', '1.5', ...SORTS, 'price ', 'Sort',
];
const value = fc.oneof(
  fc.constantFrom(...TEXTS),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -20, max: 1200 }),
  fc.constantFrom(0, 1, 15, 16, 850, 851, 1e21, -0, 12.5, 0.123, 1e12, 1e12 + 1),
  // JSON, the arguments' only carrier, has no NaN or infinities.
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constantFrom(null, [], {}),
);
const SEARCH_FIELDS = Object.keys(SEARCH_SHAPES);
const parameterSets = fc.dictionary(fc.constantFrom(...SEARCH_FIELDS, 'depCity'), value, { maxKeys: 5 });

describe('search_empty_legs: the input schema and the listing parser accept the same arguments', () => {
  it('names every listing parameter, typed from its rule, described from the contract', () => {
    const schema = searchInputSchema() as { properties: Record<string, { type: string; description?: string }>; additionalProperties: boolean };
    // Every listing parameter of the contract's operation, `include` too.
    expect(Object.keys(schema.properties)).toEqual([...LIST_QUERY_FIELDS, 'include']);
    expect(SEARCH_FIELDS).toEqual(expect.arrayContaining(['source', 'kind', 'verifiedOnly', 'maxAgeHours', 'include']));
    expect([...SEARCH_FIELDS].sort()).toEqual(contractQueryParameters('/open/v1/empty-legs').sort());
    for (const name of LIST_QUERY_FIELDS) expect(schema.properties[name]!.type).toBe(PARAMETER_SHAPES[name]!.schema.type);
    expect(schema.properties.include).toMatchObject({ type: 'string', description: expect.stringMatching(/provenance/) });
    expect(schema.properties.minSeats).toMatchObject({ type: 'integer', minimum: 1, maximum: 850 });
    expect(schema.properties.depNear!.description).toMatch(/airport/);
    expect(schema.additionalProperties).toBe(false);
  });

  it('what the tool accepts the schema accepts, and what the schema accepts the tool accepts but for rules it cannot state', () => {
    let accepted = 0;
    fc.assert(
      fc.property(parameterSets, (args) => {
        const tool = toolOutcome(args);
        const schema = schemaAccepts(args);
        if (tool.ok) {
          accepted++;
          expect({ args, schema }).toEqual({ args, schema: true });
        } else if (schema) {
          const exact = PARAMETER_SHAPES[tool.parameter]?.exact ?? false;
          expect({ args, refusal: tool.message, explained: !exact || BETWEEN_PARAMETERS.test(tool.message) }).toEqual({ args, refusal: tool.message, explained: true });
        }
      }),
      fcParams(1500),
    );
    // The generator reaches both sides.
    expect(accepted).toBeGreaterThan(20);
  });

  it('each exact parameter alone: the schema accepts a value exactly when the parser does', () => {
    const exact = LIST_QUERY_FIELDS.filter((name) => PARAMETER_SHAPES[name]!.exact);
    expect(exact).toEqual(expect.arrayContaining(['page', 'size', 'depDate', 'depAirportCode', 'minSeats', 'sort', 'currency', 'pricedOnly']));
    fc.assert(
      fc.property(fc.constantFrom(...exact), value, (name, v) => {
        const tool = toolOutcome({ [name]: v });
        const toolAccepts = tool.ok || BETWEEN_PARAMETERS.test(tool.message);
        expect({ name, v, schema: schemaAccepts({ [name]: v }) }).toEqual({ name, v, schema: toolAccepts });
      }),
      fcParams(1500),
    );
  });
});

describe('get_empty_leg: its group argument and the by-id route accept the same values', () => {
  const schema = TOOLS.find((t) => t.name === 'get_empty_leg')!.inputSchema() as { properties: Record<string, Record<string, unknown>>; required: string[] };
  const legSchemaAccepts = ajv.compile(schema);
  const lookup = () => Promise.reject(new Error('not run here'));

  it('names the route\'s parameters beside the id, group typed from its rule and described from the contract', () => {
    expect([Object.keys(schema.properties), schema.required]).toEqual([['id', 'currency', 'include', 'group'], ['id']]);
    expect(schema.properties.group).toMatchObject({ type: 'string', enum: [...GROUPS], default: 'leg', description: expect.stringMatching(/By id, the flight the leg belongs to/) });
  });

  it('the schema accepts a group exactly when the tool does (the route\'s rule, then its lookup)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...GROUPS, 'Flight', 'flights', ' leg', 'aircraft'), value), (group) => {
        let toolAccepts = true;
        try {
          flightLookupFor(argumentTexts({ group }, typesOf(LEG_SHAPES)).group, lookup);
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== 'INVALID_PARAMETER') throw err;
          toolAccepts = false;
        }
        if (toolAccepts) accepted++;
        expect({ group, schema: legSchemaAccepts({ id: 'EL-1', group }) }).toEqual({ group, schema: toolAccepts });
      }),
      fcParams(500),
    );
    expect(accepted).toBeGreaterThan(10);
  });
});

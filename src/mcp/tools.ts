import { invalidParameter } from '../errors.js';
import type { EmptyLeg } from '../kernel/model.js';
import { PARAMETER_SHAPES, type LegsPage } from '../listing/index.js';
import { ROUTES } from '../routes.js';
import type { SourceView } from '../sources/index.js';
import type { Watch } from '../watches/index.js';
import { ENQUIRY_KEY_PATTERN, ENQUIRY_KEY_RULE } from '../enquiries/index.js';
import { argumentText, argumentTexts, INCLUDE_SHAPE, SEARCH_TYPES, searchInputSchema, shapeProperties, typesOf, type Arguments } from './arguments.js';
import { contractSchema, parameterSchema, responseData, type JsonSchema } from './contract-schemas.js';
import { enquiryText, legLine, pageText, sourcesText, watchesText, watchLine, type Enquiry } from './summary.js';

/**
 * The MCP tools (docs/api.md, "MCP"): each one an operation of the API, with its route's scopes,
 * run against a `LegsApi`: the use cases in process (the mcp function) or the HTTP API (`npm run mcp`).
 */
export interface LegsApi {
  /** The listing: the query-string parameters, parsed by the listing's own parser. */
  search(params: Readonly<Record<string, string>>): Promise<LegsPage>;
  /** GET /open/v1/empty-legs/{id} with its query-string parameters (`currency`, `include`, `group`). */
  getLeg(id: string, params: Readonly<Record<string, string>>): Promise<EmptyLeg>;
  /** GET /open/v1/sources. */
  listSources(): Promise<{ records: SourceView[] }>;
  listWatches(): Promise<{ records: Watch[] }>;
  /** A POST body of /open/v1/watches. */
  createWatch(body: Readonly<Record<string, unknown>>): Promise<Watch & { secret: string }>;
  deleteWatch(id: string): Promise<void>;
  /** POST /open/v1/empty-legs/{id}/enquiries with its Idempotency-Key: the enquiry, and whether it is the key's first answer again. */
  enquire(legId: string, idempotencyKey: string, body: Readonly<Record<string, unknown>>): Promise<{ enquiry: Enquiry; replayed: boolean }>;
}

export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** Every scope the key must hold: the tool is listed, and runs, only then. */
  scopes: readonly string[];
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  inputSchema: () => JsonSchema;
  outputSchema: () => JsonSchema;
  run(args: Arguments, api: LegsApi): Promise<ToolAnswer>;
}

/** get_empty_leg's parameters beside the id, as the by-id route takes them. */
export const LEG_SHAPES = { currency: PARAMETER_SHAPES.currency!, include: INCLUDE_SHAPE, group: PARAMETER_SHAPES.group! };

const object = (properties: Record<string, unknown>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: false,
});

/** A read-only tool of no argument that answers a list: its records, and `text` of them. */
function listTool<T>(tool: Pick<ToolDefinition, 'name' | 'title' | 'description' | 'scopes'> & {
  /** The envelope in docs/openapi.yaml of the route's answer. */
  response: string;
  list: (api: LegsApi) => Promise<{ records: T[] }>;
  text: (records: T[]) => string;
}): ToolDefinition {
  const { response, list, text, ...named } = tool;
  return {
    ...named,
    readOnly: true,
    destructive: false,
    idempotent: true,
    inputSchema: () => object({}),
    outputSchema: () => responseData(response),
    run: async (args, api) => {
      argumentTexts(args, {});
      const answer = await list(api);
      return { structured: { ...answer }, text: text(answer.records) };
    },
  };
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'search_empty_legs',
    title: 'Search empty legs',
    description:
      'Search the listed empty-leg private-jet flights (one-way repositioning flights sold at a discount). Every argument is optional and narrows the search; they are the REST listing\'s query parameters with the same rules. ' +
      'Dates are yyyy-MM-dd (UTC); distances are km; prices are in `currency` (required by minPrice, maxPrice and the price orders). ' +
      'Nearby search: depNear/arrNear (an airport code) with depRadiusKm/arrRadiusKm (default 100). Trip search: tripFrom and tripTo (airport codes), maxDetourPct (default 25). ' +
      'Answers one page (default 20 legs, size up to 100, `page` for the next) and `total` over all pages; an empty page means nothing matches, not an error. ' +
      '`group: "flight"` lists each flight once (one aircraft on one route offered by several sellers): its best matching offer\'s record, then `offerCount` and `offers`, best first; `total` and pages count flights. ' +
      'A refused argument comes back as an error naming it and its rule.',
    scopes: [ROUTES.listEmptyLegs.scope],
    readOnly: true,
    destructive: false,
    idempotent: true,
    inputSchema: searchInputSchema,
    outputSchema: () => responseData('ListResponse'),
    run: async (args, api) => {
      const page = await api.search(argumentTexts(args, SEARCH_TYPES));
      return { structured: { ...page }, text: pageText(page) };
    },
  },
  {
    name: 'get_empty_leg',
    title: 'Get one empty leg',
    description:
      'One empty leg by its id (as search_empty_legs gives it), with every field: airports, aircraft, seats, price and amenities. ' +
      'With `currency` it also carries `convertedPrice` at the reference rates in force. ' +
      'With `group: "flight"` it answers the flight the leg belongs to (the same aircraft and route offered by several sellers): its best offer\'s record, then `offerCount` and `offers`, best first; `group: "leg"` (the default) answers the leg alone. ' +
      'NOT_FOUND when the leg is not listed (any more).',
    scopes: [ROUTES.getEmptyLeg.scope],
    readOnly: true,
    destructive: false,
    idempotent: true,
    inputSchema: () => object({ id: parameterSchema('legId'), ...shapeProperties(LEG_SHAPES) }, ['id']),
    outputSchema: () => responseData('LegResponse'),
    run: async (args, api) => {
      const { id, ...params } = argumentTexts(args, { id: 'string', ...typesOf(LEG_SHAPES) });
      if (id === undefined) throw invalidParameter('id', 'is required: the id of a listed leg');
      const leg = await api.getLeg(id, params);
      return { structured: { ...leg }, text: legLine(leg) };
    },
  },
  listTool({
    name: 'list_sources',
    title: 'List sources',
    description:
      'The sources the legs come from (operators and brokers), as search_empty_legs\'s `source` names them: each with its kind, whether the service verified its authority to sell, ' +
      'how many legs it has in the listing now, its last load (UTC) and whether it is stale (not loaded within its limit). An empty list means no source is registered and no leg is listed.',
    scopes: [ROUTES.listSources.scope],
    response: 'SourcesResponse',
    list: (api) => api.listSources(),
    text: sourcesText,
  }),
  listTool({
    name: 'list_watches',
    title: 'List watches',
    description:
      "This client's watches: saved searches whose newly listed, changed or withdrawn legs are POSTed, signed, to a webhook URL. An empty list means the client has none.",
    scopes: [ROUTES.listWatches.scope],
    response: 'WatchListResponse',
    list: (api) => api.listWatches(),
    text: watchesText,
  }),
  {
    name: 'create_watch',
    title: 'Create a watch',
    description:
      "Save a search as a watch: each leg that starts to match `filters` (the search's arguments, paging and order aside), changes or stops matching is POSTed to `url` (https, a public address), signed with the returned `secret` (Standard Webhooks), which is shown only once. " +
      'A client has at most 100 watches.',
    scopes: [ROUTES.createWatch.scope, ROUTES.listEmptyLegs.scope],
    readOnly: false,
    destructive: false,
    idempotent: false,
    inputSchema: () => contractSchema('WatchInput'),
    outputSchema: () => responseData('CreatedWatchResponse'),
    run: async (args, api) => {
      const watch = await api.createWatch(args ?? {});
      return { structured: { ...watch }, text: `Created ${watchLine(watch)}. Its signing secret is in the structured answer; it is not shown again.` };
    },
  },
  {
    name: 'delete_watch',
    title: 'Delete a watch',
    description: 'Delete one of this client\'s watches by its id (wat_...): it gets no delivery any more. NOT_FOUND when the client has no such watch.',
    scopes: [ROUTES.deleteWatch.scope],
    readOnly: false,
    destructive: true,
    idempotent: true,
    inputSchema: () => object({ id: parameterSchema('watchId') }, ['id']),
    outputSchema: () => object({ id: { type: 'string' }, deleted: { type: 'boolean', const: true } }, ['id', 'deleted']),
    run: async (args, api) => {
      const { id } = argumentTexts(args, { id: 'string' });
      if (id === undefined) throw invalidParameter('id', 'is required: the id of a watch (wat_...)');
      await api.deleteWatch(id);
      return { structured: { id, deleted: true }, text: `Deleted watch ${id}.` };
    },
  },
  {
    name: 'enquire',
    title: 'Ask the seller of an empty leg',
    description:
      "Send the seller of one listed leg an enquiry: `passengers` (at most the leg's seats), `contact` (name, email, phone in E.164), a `message` and your own `reference`; " +
      "`notifyUrl` (https, public) gets the seller's answer, signed with the `secret` of this answer (shown once). " +
      '`idempotencyKey` is your key for this enquiry (a UUID serves): send the same key on a retry and the first answer comes back, not a second enquiry; ' +
      'the same key with other arguments is IDEMPOTENCY_KEY_REUSED. ENQUIRIES_NOT_ACCEPTED: the seller takes no enquiries through the API; a client holds at most 200 open enquiries.',
    scopes: [ROUTES.postEnquiry.scope],
    readOnly: false,
    destructive: false,
    // With the same idempotencyKey, a call again is the first call's answer.
    idempotent: true,
    inputSchema: () => {
      const body = contractSchema('EnquiryInput') as { properties: Record<string, unknown>; required: string[] };
      const key = { ...parameterSchema('idempotencyKey'), description: 'Your key for this enquiry, the same on each retry (a UUID serves); per client, held 24 hours.' };
      return object({ id: parameterSchema('legId'), idempotencyKey: key, ...body.properties }, ['id', 'idempotencyKey', ...body.required]);
    },
    outputSchema: () => responseData('CreatedEnquiryResponse'),
    run: async (args, api) => {
      const { id, idempotencyKey, ...body } = args ?? {};
      if (id === undefined) throw invalidParameter('id', 'is required: the id of a listed leg');
      if (idempotencyKey === undefined) throw invalidParameter('idempotencyKey', 'is required: a key of your own, such as a UUID, the same on every retry of this enquiry');
      const key = argumentText('idempotencyKey', idempotencyKey, 'string');
      if (!ENQUIRY_KEY_PATTERN.test(key)) throw invalidParameter('idempotencyKey', ENQUIRY_KEY_RULE);
      const { enquiry, replayed } = await api.enquire(argumentText('id', id, 'string'), key, body);
      return { structured: { ...enquiry }, text: enquiryText(enquiry, replayed) };
    },
  },
];

/** The scopes of `tool` that `held` lacks. */
export function missingScopes(tool: ToolDefinition, held: readonly string[]): string[] {
  return tool.scopes.filter((scope) => !held.includes(scope));
}

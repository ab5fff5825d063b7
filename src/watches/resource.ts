import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { airportReference, type AirportIndex } from '../airports/index.js';
import type { Clock } from '../clock.js';
import type { WatchesConfig } from '../config.js';
import { AppError, invalidParameter } from '../errors.js';
import { randomBase62 } from '../keys/index.js';
import { cachedRates, createRatesStore, type RateSet, type RatesSource } from '../rates/index.js';
import { answeredFilters, currencyOf, parseWatchFilters, type WatchFilters } from './filters.js';
import {
  getWatch,
  listWatches,
  recentDeliveries,
  WatchLimitReached,
  type DeliveryRecord,
  type WatchRecord,
  type WatchStatus,
  type WatchTables,
} from './store.js';
import { deleteWatch, putWatch } from './counted-writes.js';
import { INCLUDE_RULE, parseInclude } from '../kernel/leg/blocks.js';
import { checkTargetUrl, LookupTimeout, resolveTargetWithin, systemResolver, TargetRefused, type Resolver, type TargetPolicy } from './target.js';

/**
 * The watch resource's use cases (docs/api.md, "Watches"): a watch belongs to the client of the key
 * that made it, and any other client's key finds nothing. Pure of HTTP: the handlers
 * (src/watches/handlers.ts) parse and answer.
 */
export const MAX_WATCHES_PER_CLIENT = 100;
export const MAX_BODY_BYTES = 16_384;
export const MAX_DESCRIPTION_LENGTH = 500;
/** Deliveries listed by GET /open/v1/watches/{id}/deliveries: the most recent. */
export const DELIVERIES_SHOWN = 100;
/** The signing secret's random part, bytes (Standard Webhooks: 24 to 64). */
export const SECRET_BYTES = 32;

export const WATCH_ID_PATTERN = /^wat_[0-9A-Za-z]{20}$/;
export const WATCH_NOT_FOUND_MESSAGE = 'No watch with this id';

export interface Watch {
  id: string;
  url: string;
  filters: WatchFilters;
  description: string | null;
  status: WatchStatus;
  createdAt: string;
  /** Since when every attempt has failed (null: the last attempt succeeded, or none failed). */
  failingSince: string | null;
  disabledAt: string | null;
  /** The blocks its deliveries' legs carry (`provenance`, `departure`); absent when none. */
  include?: string;
  /** `flight` when the watch's events are its flights' (absent: each leg's, the default `leg`). */
  group?: 'flight';
}

export type CreatedWatch = Watch & { secret: string };

export interface Delivery {
  id: string;
  type: string;
  legId: string;
  status: DeliveryRecord['status'];
  attempts: number;
  responseCode: number | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

export interface WatchDependencies {
  tables: WatchTables;
  airports: () => AirportIndex;
  targets: TargetPolicy;
  /** Resolves a watch's host at creation (the system resolver in the functions). */
  resolver: Resolver;
  clock: Clock;
  /** The rates in force, read when the filters give a `currency` (default: none loaded). */
  rates?: RatesSource;
}

/** The watch use cases' ports in a function (functions/watches, functions/watch-admin, functions/mcp): the tables, the airports, the system resolver, the rates read at most once a minute. */
export function watchPortsOf(config: WatchesConfig, client: DynamoDBDocumentClient): WatchDependencies & { rates: RatesSource } {
  return {
    tables: { client, watchesTableName: config.watchesTableName, deliveriesTableName: config.deliveriesTableName },
    airports: airportReference,
    targets: config.webhookTargets,
    resolver: systemResolver,
    clock: config.clock,
    rates: cachedRates(createRatesStore(client, config.legsTableName), { clock: config.clock }),
  };
}

/** What parsing a body's filters consults: the airports, and the rates in force when they give a `currency`. */
export type FilterDependencies = Pick<WatchDependencies, 'airports' | 'targets'> & { ratesInForce?: RateSet | undefined };

/** The rates in force for `filters`: read only when they give a `currency` (the listing's rule). */
export async function ratesFor(filters: unknown, deps: Pick<WatchDependencies, 'rates'>): Promise<RateSet | undefined> {
  return currencyOf(filters) === undefined ? undefined : deps.rates?.();
}

/** How long a creation waits for its URL's host to resolve. */
export const CREATION_LOOKUP_MS = 3_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** A URL as WHATWG serializes it (what is stored and shown), or the text when it does not parse. */
export function normalizedUrl(raw: string): string {
  return URL.canParse(raw) ? new URL(raw).href : raw;
}

export function publicWatch(r: WatchRecord): Watch {
  return {
    id: r.watchId,
    url: normalizedUrl(r.url),
    filters: answeredFilters(r.filters),
    description: r.description,
    status: r.status,
    createdAt: r.createdAt,
    failingSince: r.failingSince,
    disabledAt: r.disabledAt,
    ...(r.include ? { include: r.include } : {}),
    ...(r.group === undefined ? {} : { group: r.group }),
  };
}

export function generateSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** A watch's `include` (docs/api.md, "Provenance and departure"): the text as given; undefined for none (absent, null or empty). */
export function parseWatchInclude(raw: unknown): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string' || parseInclude(raw) === null) throw invalidParameter('include', INCLUDE_RULE);
  return raw;
}

/** A watch's `group` (docs/watches.md, "Flights"): absent or `leg` (undefined), or `flight`. */
export function parseWatchGroup(raw: unknown): 'flight' | undefined {
  if (raw === undefined || raw === 'leg') return undefined;
  if (raw !== 'flight') throw invalidParameter('group', 'must be one of leg, flight');
  return 'flight';
}

/** A POST body, parsed: `{url, filters, description?, include?, group?}`, nothing else. */
export function parseWatchBody(body: unknown, deps: FilterDependencies): Pick<WatchRecord, 'url' | 'filters' | 'description' | 'include' | 'group'> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidParameter('body', 'must be a JSON object');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((k) => !['url', 'filters', 'description', 'include', 'group'].includes(k));
  if (unknown !== undefined) throw invalidParameter('body', `unknown field '${unknown}': a watch has url, filters, description, include and group`);
  if (typeof fields.url !== 'string') throw invalidParameter('url', 'is required: the https URL to deliver to');
  let url: URL;
  try {
    url = checkTargetUrl(fields.url, deps.targets);
  } catch (err) {
    if (err instanceof TargetRefused) throw invalidParameter('url', err.message);
    throw err;
  }
  const description = fields.description ?? null;
  if (description !== null && (typeof description !== 'string' || [...description].length > MAX_DESCRIPTION_LENGTH)) {
    throw invalidParameter('description', `must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  const group = parseWatchGroup(fields.group);
  const { stored } = parseWatchFilters(fields.filters, deps.airports, deps.ratesInForce);
  const include = parseWatchInclude(fields.include);
  return { url: url.href, filters: { ...stored }, description: description === '' ? null : description, ...(include === undefined ? {} : { include }), ...(group === undefined ? {} : { group }) };
}

/** The URL's host resolved and every address checked, as before each delivery (docs/watches.md, "Safe targets"). */
export async function checkResolvedTarget(url: string, deps: Pick<WatchDependencies, 'targets' | 'resolver'>, parameter = 'url'): Promise<void> {
  try {
    await resolveTargetWithin(new URL(url), deps.targets, deps.resolver, CREATION_LOOKUP_MS);
  } catch (err) {
    if (err instanceof TargetRefused) throw invalidParameter(parameter, err.message);
    if (err instanceof LookupTimeout) throw new AppError('SERVICE_UNAVAILABLE', `The host of '${parameter}' did not resolve within ${CREATION_LOOKUP_MS} ms; retry`);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') throw invalidParameter(parameter, 'its host has no address');
    if (code !== undefined) throw new AppError('SERVICE_UNAVAILABLE', `The host of '${parameter}' could not be resolved now (${code}); retry`);
    throw err;
  }
}

export async function createWatch(clientId: string, body: unknown, deps: WatchDependencies): Promise<CreatedWatch> {
  const ratesInForce = await ratesFor((body as { filters?: unknown } | null)?.filters, deps);
  const fields = parseWatchBody(body, { ...deps, ratesInForce });
  await checkResolvedTarget(fields.url, deps);
  const record: WatchRecord = {
    clientId,
    watchId: `wat_${randomBase62(20)}`,
    ...fields,
    status: 'active',
    createdAt: iso(deps.clock()),
    secret: generateSecret(),
    failingSince: null,
    disabledAt: null,
  };
  try {
    await putWatch(deps.tables, record, MAX_WATCHES_PER_CLIENT);
  } catch (err) {
    if (err instanceof WatchLimitReached) {
      throw new AppError('WATCH_LIMIT_REACHED', `A client has at most ${MAX_WATCHES_PER_CLIENT} watches; delete one first`);
    }
    throw err;
  }
  return { ...publicWatch(record), secret: record.secret };
}

export function parseWatchId(raw: string | undefined): string {
  if (raw === undefined || !WATCH_ID_PATTERN.test(raw)) throw invalidParameter('id', 'must be a watch id (wat_ followed by 20 letters and digits)');
  return raw;
}

/** The client's watch, or NOT_FOUND (another client's watch included). */
export async function requireWatch(clientId: string, watchId: string, deps: Pick<WatchDependencies, 'tables'>): Promise<WatchRecord> {
  const record = await getWatch(deps.tables, clientId, watchId);
  if (record === undefined) throw new AppError('NOT_FOUND', WATCH_NOT_FOUND_MESSAGE);
  return record;
}

export async function readWatch(clientId: string, watchId: string, deps: Pick<WatchDependencies, 'tables'>): Promise<Watch> {
  return publicWatch(await requireWatch(clientId, watchId, deps));
}

export async function readWatches(clientId: string, deps: Pick<WatchDependencies, 'tables'>): Promise<Watch[]> {
  return (await listWatches(deps.tables, clientId)).map(publicWatch);
}

export async function removeWatch(clientId: string, watchId: string, deps: Pick<WatchDependencies, 'tables'>): Promise<void> {
  if (!(await deleteWatch(deps.tables, clientId, watchId))) throw new AppError('NOT_FOUND', WATCH_NOT_FOUND_MESSAGE);
}

export async function readDeliveries(clientId: string, watchId: string, deps: Pick<WatchDependencies, 'tables'>): Promise<Delivery[]> {
  await requireWatch(clientId, watchId, deps);
  return (await recentDeliveries(deps.tables, watchId, DELIVERIES_SHOWN)).map(publicDelivery);
}

export function publicDelivery(d: DeliveryRecord): Delivery {
  return {
    id: d.id,
    type: d.type,
    legId: d.legId,
    status: d.status,
    attempts: d.attempts,
    responseCode: d.responseCode ?? null,
    createdAt: d.createdAt,
    lastAttemptAt: d.lastAttemptAt ?? null,
    nextAttemptAt: d.nextAttemptAt ?? null,
  };
}

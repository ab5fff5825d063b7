/**
 * A typed client of the API, generated from its contract (README, "A typed client"):
 *
 *   npx openapi-typescript docs/openapi.yaml -o examples/typed-client/schema.d.ts
 *   EMPTY_LEGS_URL=http://localhost:3000 EMPTY_LEGS_KEY=elk_test_... npx tsx examples/typed-client/client.ts
 *
 * `schema.d.ts` is generated, not committed. openapi-fetch checks paths, parameters and response
 * bodies against it at compile time; the test in test/e2e/contract.e2e.test.ts generates it,
 * type-checks this file with tsc and runs it against the local server.
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { components, paths } from './schema.js';

export type EmptyLeg = components['schemas']['EmptyLeg'];
export type ListQuery = NonNullable<paths['/open/v1/empty-legs']['get']['parameters']['query']>;
export type ErrorCode = components['schemas']['ErrorCode'];
export type Change = components['schemas']['Change'];
/** Why a `withdrawn` change's leg left the listing (`Change.reason`); a watch's delivery may also say `no_longer_matching`. */
export type WithdrawReason = components['schemas']['WithdrawReason'];
export type Source = components['schemas']['Source'];
/** One seller's offer of a flight (`group=flight`): docs/api.md, "Flights". */
export type Offer = components['schemas']['Offer'];

export type Watch = components['schemas']['Watch'];
export type WatchInput = components['schemas']['WatchInput'];
export type WebhookEvent = components['schemas']['WebhookEvent'];

/**
 * A delivery of a watch, verified (docs/api.md, "Deliveries"): the raw body as received and its
 * headers, checked with the watch's `whsec_` secret by the Standard Webhooks library (signature and
 * a timestamp within 5 minutes). Throws when it does not verify; deduplicate by `webhook-id`.
 */
export function verifyDelivery(secret: string, rawBody: string, headers: Record<string, string>): WebhookEvent {
  return new Webhook(secret).verify(rawBody, headers) as WebhookEvent;
}

/**
 * Applies a verified event of a watch of `group: "flight"` to a mirror of its flights, keyed by offer
 * id (docs/watches.md, "Flights"): a record is set under each of its offers (a flight's best offer,
 * and so `leg.id`, may change), the offer of `data.id` leaves first; `withdrawn` removes its flight.
 */
export function applyFlightEvent(flights: Map<string, EmptyLeg>, event: WebhookEvent): void {
  const held = flights.get(event.data.id);
  flights.delete(event.data.id);
  const leg = event.data.leg;
  if (leg === null) {
    for (const offer of held?.offers ?? []) if (flights.get(offer.id) === held) flights.delete(offer.id);
    return;
  }
  for (const offer of leg.offers ?? [leg]) flights.set(offer.id, leg);
}

/** Creates a watch; its `secret` is in this answer only. */
export async function createWatch(
  client: ReturnType<typeof emptyLegsClient>,
  body: WatchInput,
): Promise<(Watch & { secret: string }) | { error: ErrorCode | 'GATEWAY'; message: string; status: number }> {
  const { data, error, response } = await client.POST('/open/v1/watches', { body });
  if (error) return { error: 'code' in error ? error.code : 'GATEWAY', message: error.message, status: response.status };
  return data.data;
}

type Failure = { error: ErrorCode | 'GATEWAY'; message: string; status: number };
export type WatchPatch = components['schemas']['WatchPatch'];
export type Attempt = components['schemas']['Attempt'];

/** Changes a watch's url, filters, description, include or enabled (`enabled: true` turns a disabled watch on again). */
export async function updateWatch(client: ReturnType<typeof emptyLegsClient>, id: string, body: WatchPatch): Promise<Watch | Failure> {
  const { data, error, response } = await client.PATCH('/open/v1/watches/{id}', { params: { path: { id } }, body });
  if (error) return { error: 'code' in error ? error.code : 'GATEWAY', message: error.message, status: response.status };
  return data.data;
}

/** Sends a signed `watch.test` event to the watch's URL now; the answer is the attempt (`result`, `responseCode`, `durationMs`). */
export async function testWatch(client: ReturnType<typeof emptyLegsClient>, id: string): Promise<Attempt | Failure> {
  const { data, error, response } = await client.POST('/open/v1/watches/{id}/test', { params: { path: { id } } });
  if (error) return { error: 'code' in error ? error.code : 'GATEWAY', message: error.message, status: response.status };
  return data.data;
}

/** Sends a delivery again now, with its `webhook-id`; the attempt, and the delivery after it. */
export async function retryDelivery(
  client: ReturnType<typeof emptyLegsClient>,
  id: string,
  deliveryId: string,
): Promise<(Attempt & { delivery: components['schemas']['Delivery'] }) | Failure> {
  const { data, error, response } = await client.POST('/open/v1/watches/{id}/deliveries/{deliveryId}/retry', { params: { path: { id, deliveryId } } });
  if (error) return { error: 'code' in error ? error.code : 'GATEWAY', message: error.message, status: response.status };
  return data.data;
}

/** A new signing secret, in this answer only; the old one signs too until `previousSecretExpiresAt` (24 h). */
export async function rotateWatchSecret(
  client: ReturnType<typeof emptyLegsClient>,
  id: string,
): Promise<{ secret: string; rotatedAt: string; previousSecretExpiresAt: string } | Failure> {
  const { data, error, response } = await client.POST('/open/v1/watches/{id}/secret/rotate', { params: { path: { id } } });
  if (error) return { error: 'code' in error ? error.code : 'GATEWAY', message: error.message, status: response.status };
  return data.data;
}

export type ApiKey = components['schemas']['ApiKey'];
export type CreatedApiKey = components['schemas']['CreatedApiKey'];
/** The calling key, with its client's rate limit (`clientRateLimit`, all its keys together). */
export type SelfApiKey = components['schemas']['SelfApiKey'];
type Client = ReturnType<typeof emptyLegsClient>;
const failure = (error: { code?: ErrorCode; message: string }, status: number): Failure => ({
  error: error.code ?? 'GATEWAY',
  message: error.message,
  status,
});

/** The calling key itself (any scope): docs/api.md, "Managing keys". */
export async function readOwnKey(client: Client): Promise<SelfApiKey | Failure> {
  const { data, error, response } = await client.GET('/open/v1/api-keys/self');
  return error ? failure(error, response.status) : data.data;
}

/** The client's keys in this environment, without secrets (`api_key:read`). */
export async function listKeys(client: Client): Promise<ApiKey[] | Failure> {
  const { data, error, response } = await client.GET('/open/v1/api-keys');
  return error ? failure(error, response.status) : data.data.records;
}

/** A new key with approved scopes (`api_key:write`); its secret `key` is in this answer only. */
export async function createKey(client: Client, body: components['schemas']['ApiKeyInput']): Promise<CreatedApiKey | Failure> {
  const { data, error, response } = await client.POST('/open/v1/api-keys', { body });
  return error ? failure(error, response.status) : data.data;
}

/** Rotates a key (`api_key:write`): the new key at once (its old scopes still approved; `droppedScopes` the others), the old one deprecated for `graceHours` (default 168). */
export async function rotateKey(client: Client, id: string, graceHours?: number): Promise<{ key: CreatedApiKey; previous: ApiKey; droppedScopes: string[] } | Failure> {
  const { data, error, response } = await client.POST('/open/v1/api-keys/{id}/rotate', {
    params: { path: { id } },
    body: graceHours === undefined ? undefined : { graceHours },
  });
  return error ? failure(error, response.status) : data.data;
}

/** Revokes a key (`api_key:write`); the client's last active write key is refused (409 LAST_WRITE_KEY). */
export async function revokeKey(client: Client, id: string): Promise<ApiKey | Failure> {
  const { data, error, response } = await client.DELETE('/open/v1/api-keys/{id}', { params: { path: { id } } });
  return error ? failure(error, response.status) : data.data;
}

/**
 * The sources of the legs (docs/api.md, "Sources"): who sells them (`kind`), whether the seller's
 * authority was checked (`verified`), each one's legs in the listing, last load and staleness.
 */
export async function listSources(client: Client): Promise<Source[] | Failure> {
  const { data, error, response } = await client.GET('/open/v1/sources');
  return error ? failure(error, response.status) : data.data.records;
}

export type Enquiry = components['schemas']['Enquiry'];
export type CreatedEnquiry = components['schemas']['CreatedEnquiry'];
export type EnquiryInput = components['schemas']['EnquiryInput'];

/**
 * Asks a leg's seller for it (docs/api.md, "Enquiries"). `idempotencyKey` is yours (a UUID serves):
 * send the same one on every retry of this request, and the API answers the first answer again
 * (`replayed`), never a second enquiry. `secret` is there when `notifyUrl` was given, this once.
 */
export async function enquire(client: Client, legId: string, body: EnquiryInput, idempotencyKey: string): Promise<{ enquiry: CreatedEnquiry; replayed: boolean } | Failure> {
  const { data, error, response } = await client.POST('/open/v1/empty-legs/{id}/enquiries', { params: { path: { id: legId }, header: { 'Idempotency-Key': idempotencyKey } }, body });
  return error ? failure(error, response.status) : { enquiry: data.data, replayed: response.headers.get('idempotent-replayed') === 'true' };
}

/** Your enquiries (`role: 'broker'`, the default) or those on the legs you sell (`role: 'seller'`), newest first. */
export async function listEnquiries(client: Client, query: NonNullable<paths['/open/v1/enquiries']['get']['parameters']['query']> = {}): Promise<{ records: Enquiry[]; nextCursor: string | null } | Failure> {
  const { data, error, response } = await client.GET('/open/v1/enquiries', { params: { query } });
  return error ? failure(error, response.status) : data.data;
}

/** The seller's answer: a quote or a decline; the same answer again changes nothing. */
export async function answerEnquiry(client: Client, id: string, body: components['schemas']['AnswerInput']): Promise<Enquiry | Failure> {
  const { data, error, response } = await client.POST('/open/v1/enquiries/{id}/answer', { params: { path: { id } }, body });
  return error ? failure(error, response.status) : data.data;
}

/** The broker withdraws its open enquiry. */
export async function withdrawEnquiry(client: Client, id: string): Promise<Enquiry | Failure> {
  const { data, error, response } = await client.POST('/open/v1/enquiries/{id}/withdraw', { params: { path: { id } } });
  return error ? failure(error, response.status) : data.data;
}

export function emptyLegsClient(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });
}

/**
 * One leg by id, polled: pass the `etag` of the answer you hold (or none the first time). `unchanged`
 * is the API's 304 (keep what you have); `leg` is the current leg with its new `etag`; `gone` is the
 * 404 (the leg is no longer listed: unknown, unlisted, blocked or expired). docs/api.md,
 * "Conditional requests (ETag, 304)".
 */
export async function pollLeg(
  client: ReturnType<typeof emptyLegsClient>,
  id: string,
  etag?: string,
): Promise<
  | { unchanged: true; etag: string }
  | { leg: EmptyLeg; etag: string }
  | { gone: true }
  | { error: ErrorCode | 'GATEWAY'; message: string; status: number }
> {
  const { data, error, response } = await client.GET('/open/v1/empty-legs/{id}', {
    params: { path: { id }, header: etag === undefined ? {} : { 'If-None-Match': etag } },
  });
  if (response.status === 304 && etag !== undefined) return { unchanged: true, etag };
  if (response.status === 404) return { gone: true };
  if (error) return { error: 'code' in error ? error.code : 'GATEWAY', message: error.message, status: response.status };
  return { leg: data.data, etag: response.headers.get('ETag') ?? '' };
}

/**
 * One leg with who sells it and how fresh it is (`provenance`) and when it can leave (`departure`):
 * docs/api.md, "Provenance and departure". Undefined when the leg is not listed.
 */
export async function legWithProvenance(client: ReturnType<typeof emptyLegsClient>, id: string) {
  const { data, response } = await client.GET('/open/v1/empty-legs/{id}', { params: { path: { id }, query: { include: 'provenance,departure' } } });
  if (!data) return { status: response.status };
  const { provenance, departure } = data.data;
  return { source: provenance?.source, kind: provenance?.kind, confirmedAt: provenance?.confirmedAt, latestUtc: departure?.latestUtc };
}

/**
 * Each flight of a search once (`group=flight`), with its offers best first and its `flightKey`
 * (`include=flight`): docs/api.md, "Flights". Undefined offers when the API answered an error.
 */
export async function listFlights(client: ReturnType<typeof emptyLegsClient>, query: Omit<ListQuery, 'group' | 'include'>) {
  const { data, response } = await client.GET('/open/v1/empty-legs', { params: { query: { ...query, group: 'flight', include: 'flight' } } });
  if (!data) return { status: response.status };
  return { total: data.data.total, flights: data.data.records.map((r) => ({ flightKey: r.flightKey ?? null, best: r.id, offers: r.offers ?? ([] as Offer[]) })) };
}

/** One page of legs, or the error code the API answered with. */
export async function listLegs(
  client: ReturnType<typeof emptyLegsClient>,
  query: ListQuery,
): Promise<{ legs: EmptyLeg[]; total: number; deprecated: boolean } | { error: ErrorCode | 'GATEWAY'; message: string; status: number }> {
  const { data, error, response } = await client.GET('/open/v1/empty-legs', { params: { query } });
  // An error is the envelope, or API Gateway's own `{message}` (429 throttling, 413, some 5xx).
  if (error) return { error: 'code' in error ? error.code : 'GATEWAY', message: error.message, status: response.status };
  return { legs: data.data.records, total: data.data.total, deprecated: response.headers.get('X-API-Key-Deprecated') === 'true' };
}

/**
 * The cheapest legs under `maxPrice` in `currency`, each with its `convertedPrice` (docs/api.md,
 * "Prices"): the listing with `currency`, `maxPrice` and `sort=price`.
 */
export async function cheapestLegs(client: ReturnType<typeof emptyLegsClient>, currency: string, maxPrice: number, size = 20) {
  return listLegs(client, { currency, maxPrice, sort: 'price', size });
}

/**
 * Follows the change feed into `mirror` (id to leg): reads every change after `cursor` (none the
 * first time: the feed then starts with the whole listing), applies each in order (`listed` and
 * `updated` put the leg, `withdrawn` removes it) and returns the cursor to pass next time. The
 * mirror then holds the unfiltered listing, with no rule of its own: expired legs and the legs of
 * stale sources are `withdrawn` (`reason`) within 2 minutes. docs/api.md, "Change feed".
 */
export async function followChanges(
  client: ReturnType<typeof emptyLegsClient>,
  mirror: Map<string, EmptyLeg>,
  cursor?: string,
  size = 1000,
): Promise<{ cursor: string; applied: number } | { error: ErrorCode | 'GATEWAY'; message: string; status: number }> {
  let after = cursor;
  let applied = 0;
  for (;;) {
    const { data, error, response } = await client.GET('/open/v1/empty-legs/changes', {
      params: { query: after === undefined ? { size } : { after, size } },
    });
    // CURSOR_EXPIRED (410): the cursor is older than the 30 days kept; start again without one (and a new mirror).
    if (error) return { error: 'code' in error ? error.code : 'GATEWAY', message: error.message, status: response.status };
    for (const change of data.data.changes) {
      if (change.leg === null) mirror.delete(change.id);
      else mirror.set(change.id, change.leg);
      applied++;
    }
    after = data.data.cursor;
    if (!data.data.hasMore) return { cursor: after, applied };
  }
}

async function main(): Promise<void> {
  const baseUrl = process.env.EMPTY_LEGS_URL ?? 'http://localhost:3000';
  const client = emptyLegsClient(baseUrl, process.env.EMPTY_LEGS_KEY ?? '');
  const page = await listLegs(client, { size: 3, depCityName: 'sao paulo' });
  const invalid = await listLegs(client, { size: 3, offsetDays: 20, depDate: '2030-01-01' });
  // What leaves within 60 km of Heathrow with at least 8 seats, in a midsize jet or larger.
  const near = await listLegs(client, {
    size: 100,
    depNear: 'EGLL',
    depRadiusKm: 60,
    minSeats: 8,
    aircraftType: 'Midsize Jet,Super Midsize Jet,Heavy Jet,Ultra Long Range',
  });
  // The legs that can fly Paris-Le Bourget to Rome-Ciampino on the way, at most 10 % longer, least detour first.
  const trip = await listLegs(client, { tripFrom: 'LFPB', tripTo: 'LIRA', maxDetourPct: 10, sort: 'detour', size: 5 });
  const contract = await createClient<paths>({ baseUrl }).GET('/open/v1/openapi.json');
  // Poll the first leg of the page twice: the second answer is the 304 of an unchanged leg.
  const firstId = 'legs' in page ? page.legs[0]?.id : undefined;
  const first = firstId === undefined ? undefined : await pollLeg(client, firstId);
  const second = firstId !== undefined && first && 'leg' in first ? await pollLeg(client, firstId, first.etag) : undefined;
  const missing = await pollLeg(client, 'no-such-leg');
  const provenance = firstId === undefined ? undefined : await legWithProvenance(client, firstId);
  // A watch (port 9 on this machine: nothing listens) of legs under 15,000 GBP whose events' legs carry provenance and departure,
  // a delivery signed as the service signs it, verified, then deleted.
  const watch = await createWatch(client, {
    url: 'http://127.0.0.1:9/hook',
    filters: { depAirportCode: 'LFPB', minSeats: 4, currency: 'GBP', maxPrice: 15000, pricedOnly: true },
    include: 'provenance,departure',
  });
  let watchOut: unknown = watch;
  if ('id' in watch) {
    const body = JSON.stringify({ type: 'empty_leg.listed', timestamp: new Date().toISOString(), data: { watchId: watch.id, id: 'EL-1', leg: null } });
    const now = new Date();
    const headers = { 'webhook-id': 'msg_example', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(watch.secret).sign('msg_example', now, body) };
    const verified = verifyDelivery(watch.secret, body, headers);
    // Run by its owner: a test event (nothing listens: refused), a replay of no delivery, a new secret, disabled.
    const test = await testWatch(client, watch.id);
    const retry = await retryDelivery(client, watch.id, `msg_${'x'.repeat(27)}`);
    const rotated = await rotateWatchSecret(client, watch.id);
    const updated = await updateWatch(client, watch.id, { description: 'off for now', enabled: false, include: 'departure' });
    const deleted = await client.DELETE('/open/v1/watches/{id}', { params: { path: { id: watch.id } } });
    watchOut = {
      id: watch.id,
      filters: watch.filters,
      include: watch.include,
      verified: verified.type,
      test: 'result' in test ? test.result : test,
      retry: 'error' in retry ? retry.error : retry,
      rotated: 'secret' in rotated && rotated.secret !== watch.secret,
      updated: 'id' in updated ? [updated.status, updated.description, updated.include] : updated,
      deleted: deleted.response.status === 200,
    };
  }
  // An enquiry on the first leg (the demo sources have a seller): asked, asked again with the same
  // key (the first answer, replayed), listed among the client's, then withdrawn.
  const ask = { passengers: 1, contact: { name: 'Ada Broker', email: 'ada@example.com' }, reference: 'TYPED-1' };
  const idempotencyKey = randomUUID();
  const asked = firstId === undefined ? undefined : await enquire(client, firstId, ask, idempotencyKey);
  const askedAgain = firstId === undefined ? undefined : await enquire(client, firstId, ask, idempotencyKey);
  const enquiries = await listEnquiries(client);
  const withdrawn = asked !== undefined && 'enquiry' in asked ? await withdrawEnquiry(client, asked.enquiry.id) : undefined;
  const enquiryOut =
    asked !== undefined && 'enquiry' in asked
      ? {
          legId: asked.enquiry.legId,
          status: asked.enquiry.status,
          replayed: [asked.replayed, askedAgain !== undefined && 'enquiry' in askedAgain ? askedAgain.replayed : askedAgain],
          sameEnquiry: askedAgain !== undefined && 'enquiry' in askedAgain && askedAgain.enquiry.id === asked.enquiry.id,
          listed: 'records' in enquiries && enquiries.records.some((e) => e.id === asked.enquiry.id),
          withdrawn: withdrawn !== undefined && 'status' in withdrawn ? withdrawn.status : withdrawn,
        }
      : asked;
  // A mirror of the whole listing from the change feed, then brought up to date again.
  const mirror = new Map<string, EmptyLeg>();
  const synced = await followChanges(client, mirror, undefined, 50);
  const again = 'cursor' in synced ? await followChanges(client, mirror, synced.cursor) : synced;
  // The calling key itself; the start key has no api_key:read, so listing the client's keys is refused.
  const self = await readOwnKey(client);
  const keys = await listKeys(client);
  const sources = await listSources(client);
  console.log(
    JSON.stringify({
      page: 'legs' in page ? { total: page.total, ids: page.legs.map((l) => l.id), cities: page.legs.map((l) => l.depCityName) } : page,
      invalid,
      near: 'legs' in near ? { total: near.total, ids: near.legs.map((l) => l.id) } : near,
      trip: 'legs' in trip ? { total: trip.total, ids: trip.legs.map((l) => l.id), extraKm: trip.legs.map((l) => l.detour?.extraKm) } : trip,
      openapi: contract.data?.openapi ?? null,
      leg: first && 'leg' in first ? { id: first.leg.id, etag: first.etag } : first,
      again: second,
      missing,
      provenance,
      watch: watchOut,
      enquiry: enquiryOut,
      mirror: { size: mirror.size, applied: 'applied' in synced ? synced.applied : synced, again: 'applied' in again ? again.applied : again },
      self: 'id' in self ? { id: self.id, state: self.state } : self,
      keys: Array.isArray(keys) ? keys.length : keys,
      sources: Array.isArray(sources) ? sources.map((s) => [s.id, s.kind, s.legsListed]) : sources,
    }),
  );
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

import { addDays } from '../../src/kernel/dates.js';
import { bucketOf, type StoredLeg } from '../../src/kernel/leg-item.js';
import type { IndexEntry } from '../../src/kernel/index-entry.js';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Clock } from '../../src/clock.js';
import type { LegsRepository } from '../../src/listing/index.js';
import { createListHandler } from '../../src/listing/list-handler.js';
import { createMcpHandler } from '../../src/mcp/handler.js';
import { EMPTY_REGISTRY } from '../../src/sources/index.js';
import { indexEntry } from './index-entries.js';
import { storedLeg } from './legs.js';

/**
 * A listing in memory: `count` legs from `today` on, London, Nice, Geneva, Paris and Milan with
 * their airports, four categories, seats and prices in EUR, behind a repository that hands back the
 * same item objects each time (as a warm container's cache) and counts what it is asked for.
 */
const PLACES = [
  ['London', 'EGLF', 'FAB', 'GB'],
  ['Nice', 'LFMN', 'NCE', 'FR'],
  ['Geneva', 'LSGG', 'GVA', 'CH'],
  ['Paris', 'LFPB', 'LBG', 'FR'],
  ['Milan', 'LIML', 'LIN', 'IT'],
] as const;
const CATEGORIES = ['Light Jet', 'Midsize Jet', 'Heavy Jet', 'Turboprop'] as const;

export interface MemoryListing {
  repository: LegsRepository;
  /** Bucket queries and legs fetched since the last call. */
  reads(): { buckets: number; legs: number };
}

export function memoryListing(count: number, today: string): MemoryListing {
  const items = new Map<string, StoredLeg>();
  const buckets = new Map<string, IndexEntry[]>();
  for (let i = 0; i < count; i++) {
    const dep = PLACES[i % 5]!;
    const arr = PLACES[(i + 1 + (i % 3)) % 5]!;
    const startDate = addDays(today, 1 + (i % 200));
    const endDate = addDays(startDate, i % 4);
    const id = `mem${String(i).padStart(6, '0')}`;
    const seats = 4 + (i % 12);
    const category = CATEGORIES[i % 4]!;
    items.set(id, storedLeg({
      id, startDate, endDate,
      depCityName: dep[0], depAirportIcao: dep[1], depAirportIata: dep[2], depCountryCode: dep[3], depAirportName: `${dep[0]} airport`,
      arrCityName: arr[0], arrAirportIcao: arr[1], arrAirportIata: arr[2], arrCountryCode: arr[3], arrAirportName: `${arr[0]} airport`,
      aircraftModelName: 'Citation XLS', aircraftType: category, seatNum: seats, price: 10_000 + i, currency: 'EUR',
      amenities: [{ amenityType: 'wifi', amenityName: 'Wi-Fi', amenityDesc: 'On board' }],
    }));
    const entry = indexEntry({
      id, startDate, endDate, expiresAt: Date.parse(`${addDays(endDate, 1)}T00:00:00Z`),
      depCity: dep[0].toLowerCase(), depIcao: dep[1].toLowerCase(), depIata: dep[2].toLowerCase(),
      arrCity: arr[0].toLowerCase(), arrIcao: arr[1].toLowerCase(), arrIata: arr[2].toLowerCase(),
      seats, aircraftType: category, depCountry: dep[3], arrCountry: arr[3],
    });
    const bucket = bucketOf(startDate, endDate);
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), entry]);
  }
  for (const list of buckets.values()) list.sort((a, b) => a.startDate.localeCompare(b.startDate) || a.id.localeCompare(b.id));
  const counts = { buckets: 0, legs: 0 };
  return {
    repository: {
      queryBucket: (bucket, range) => {
        counts.buckets++;
        const list = buckets.get(bucket) ?? [];
        return Promise.resolve(range?.from === undefined && range?.to === undefined ? list : list.filter((e) => (range.from === undefined || e.startDate >= range.from) && (range.to === undefined || e.startDate <= range.to)));
      },
      getLegs: (ids) => {
        counts.legs += ids.length;
        return Promise.resolve(ids.flatMap((id) => (items.has(id) ? [items.get(id) as unknown as Record<string, unknown>] : [])));
      },
    },
    reads: () => {
      const r = { ...counts };
      counts.buckets = counts.legs = 0;
      return r;
    },
  };
}

export type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The list function's handler and the MCP function's on `listing` (their caches on; no leg by id, source or watch read). */
export function listingHandlers(listing: MemoryListing, clock: Clock): { list: Handler; mcp: Handler } {
  const unread = () => Promise.reject(new Error('not read here'));
  return {
    list: createListHandler({ repository: listing.repository, config: { listingCacheTtlSeconds: 60 }, clock }),
    mcp: createMcpHandler({
      repository: listing.repository,
      readLeg: unread,
      // No source registered: the registry the list function is given none of.
      sources: { registry: () => Promise.resolve(EMPTY_REGISTRY), countListed: unread },
      watches: {} as never,
      clock,
      listingCacheTtlSeconds: 60,
    }),
  };
}

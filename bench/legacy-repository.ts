import { getLoggerPlugin } from '@aws-sdk/core/client';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../src/config.js';
import { createFunctionClient } from '../src/aws/function-clients.js';
import { withChangeAwareCache } from '../src/legs/change-aware-cache.js';
import { createJournalSource } from '../src/legs/journal.js';
import { MAX_QUERY_PAGES_PER_BUCKET } from '../src/legs/limits.js';
import { bucketQueryInput, createLegsRepository, keyCondition, type LegsRepository } from '../src/legs/repository.js';
import { AIRCRAFT_CATEGORIES } from '../src/legs/aircraft-category.js';
import { FILTER_ATTR, SORT_ATTR, type EntryFields, type IndexEntry } from '../src/legs/storage.js';

/**
 * The cold read as it was before the index entries were read from the response text
 * (docs/performance.md, "Cold cache"): the document client as the SDK builds it (its logger
 * middleware included, which copies every response for the no-op logger), each page's items
 * deserialized by the SDK and unmarshalled by the document client, then read into entries by the
 * reader as it was (one string per field of every entry). The
 * benchmark runs it beside the functions' own repository, in the same run, on the same table.
 */
export function createLegacyClient(config: Pick<Config, 'dynamodbEndpoint' | 'aws'>): DynamoDBDocumentClient {
  const client = createFunctionClient(config);
  // The plugin is typed for any client; it adds one middleware that reads only the context.
  const logger = getLoggerPlugin({}) as Parameters<typeof client.middlewareStack.use>[0];
  client.middlewareStack.use(logger);
  return client;
}

const SEP = '\u001f';
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

function splitCodes(value: string): [icao: string, iata: string] {
  const slash = value.indexOf('/');
  if (slash >= 0) return [value.slice(0, slash), value.slice(slash + 1)];
  if (value.length === 7) return [value.slice(0, 4), value.slice(4)];
  if (value.length === 4) return [value, ''];
  return value.length === 3 ? ['', value] : ['', ''];
}

/** The places of an entry as the reader as it was kept them. */
type FormerFields = Omit<EntryFields, 'id' | 'startDate' | 'endDate' | 'expiresAt' | 'seats' | 'aircraftType'>;

/** Category bits by letter (`a` the first category), as a split-string reader would look them up. */
const BIT_OF_LETTER = new Map(AIRCRAFT_CATEGORIES.map((_, i) => [String.fromCharCode(97 + i), 1 << i]));

/** The reader of index items as it was (src/legs/storage.ts IndexEntryReader before it took the response text). */
class LegacyEntryReader {
  private lastStart = '';
  private lastStartMs = Number.NaN;
  private readonly ends = new Map<number, string>();

  read(item: Readonly<Record<string, unknown>>): IndexEntry | undefined {
    const id = item.id;
    const sort = item[SORT_ATTR];
    const filter = item[FILTER_ATTR];
    if (typeof id !== 'string' || typeof sort !== 'string' || typeof filter !== 'string') return undefined;
    const f = filter.split(SEP);
    const startDate = sort.slice(0, 10);
    // Six fields, or seven with the aircraft field (src/legs/storage.ts), read as a split string.
    if (f.length !== 6 && f.length !== 7) return undefined;
    const aircraft = /^(\d*)(\D?)$/.exec(f[6] ?? '');
    if (startDate !== this.lastStart) {
      this.lastStart = startDate;
      this.lastStartMs = Date.parse(`${startDate}T00:00:00Z`);
    }
    const span = Number(f[0]);
    if (!Number.isInteger(span) || span < 0 || Number.isNaN(this.lastStartMs)) return undefined;
    const endMs = this.lastStartMs + span * DAY_MS;
    let endDate = this.ends.get(endMs);
    if (endDate === undefined) {
      endDate = new Date(endMs).toISOString().slice(0, 10);
      this.ends.set(endMs, endDate);
    }
    const expiry = f[1]!;
    const dayAfterMs = endMs + DAY_MS;
    const [depIcao, depIata] = splitCodes(f[3]!);
    const [arrIcao, arrIata] = splitCodes(f[5]!);
    // Today's listing reads the places from the filter text by offsets (src/legs/storage.ts); the
    // entry as it was held them as six strings of its own. It keeps both: what it used to keep, and
    // the text, one string more than it did.
    const depCityAt = f[0]!.length + f[1]!.length + 2;
    const depCodesAt = depCityAt + f[2]!.length + 1;
    const arrCityAt = depCodesAt + f[3]!.length + 1;
    const arrCodesAt = arrCityAt + f[4]!.length + 1;
    const entry: IndexEntry & FormerFields = {
      id,
      startDate,
      endDate,
      expiresAt: expiry.startsWith('m') ? dayAfterMs - Number(expiry.slice(1)) * MINUTE_MS : dayAfterMs - Number(expiry) * 15 * MINUTE_MS,
      depCity: f[2]!,
      depIcao,
      depIata,
      arrCity: f[4]!,
      arrIcao,
      arrIata,
      text: filter,
      depCityAt,
      depCityEnd: depCodesAt - 1,
      depCodesAt,
      depCodesEnd: arrCityAt - 1,
      arrCityAt,
      arrCityEnd: arrCodesAt - 1,
      arrCodesAt,
      arrCodesEnd: arrCodesAt + f[5]!.length,
      seats: aircraft ? Number(aircraft[1]) : 0,
      category: aircraft ? (BIT_OF_LETTER.get(aircraft[2]!) ?? 0) : 0,
    };
    return entry;
  }
}

function legacyTable(client: DynamoDBDocumentClient, tableName: string): LegsRepository {
  const table = createLegsRepository(client, tableName);
  return {
    async queryBucket(bucket, range) {
      const entries: IndexEntry[] = [];
      const reader = new LegacyEntryReader();
      const condition = keyCondition(bucket, range);
      let startKey: Record<string, unknown> | undefined;
      for (let pages = 0; pages < MAX_QUERY_PAGES_PER_BUCKET; pages++) {
        // As the read was: it asked for the id too.
        const out = await client.send(new QueryCommand({ ...bucketQueryInput(tableName, condition, startKey), ProjectionExpression: 'id, #s, #f' }));
        for (const item of out.Items ?? []) {
          const entry = reader.read(item);
          if (entry) entries.push(entry);
        }
        startKey = out.LastEvaluatedKey;
        if (!startKey) return entries;
      }
      throw new Error(`bucket ${bucket}: more than ${MAX_QUERY_PAGES_PER_BUCKET} pages`);
    },
    getLegs: (ids) => table.getLegs(ids),
  };
}

/** The functions' listing repository (src/legs/list-handler.ts createListRepository) over the legacy read. */
export function createLegacyListRepository(
  client: DynamoDBDocumentClient,
  config: Pick<Config, 'legsTableName' | 'listingCacheTtlSeconds'>,
): LegsRepository & { clear(): void } {
  return withChangeAwareCache(legacyTable(client, config.legsTableName), createJournalSource(client, config.legsTableName), {
    ceilingMs: Math.max(1, config.listingCacheTtlSeconds) * 1000,
  });
}

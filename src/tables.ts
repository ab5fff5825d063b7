import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The one definition of both tables: the local server, the tests, the benchmark and the CDK stack
 * all build their tables from these descriptions, so key names and index names cannot drift.
 */
export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
  /** Non-key attributes projected into the index (INCLUDE); undefined means ALL. */
  readonly nonKeyAttributes?: readonly string[];
  /** Project only the keys (KEYS_ONLY). */
  readonly keysOnly?: boolean;
}

export interface TableDefinition {
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly indexes: readonly IndexDefinition[];
  readonly timeToLiveAttribute?: string;
  /** The table's stream (DynamoDB Streams) and what its records carry; undefined means none. */
  readonly stream?: 'NEW_AND_OLD_IMAGES';
}

/**
 * The legs table: one item per leg keyed by `id`, the sparse indexes `byDepartureBucket`,
 * `byExpiry`, `listedLegs` and `byExpiryInstant`, and a stream that feeds the change log (docs/storage.md, "The legs table").
 */
export const LEGS_TABLE = {
  partitionKey: 'id',
  indexes: [
    {
      indexName: 'byDepartureBucket',
      partitionKey: 'lb',
      sortKey: 'ls',
      nonKeyAttributes: ['lf'],
    },
    {
      indexName: 'byExpiry',
      partitionKey: 'xp',
      sortKey: 'xd',
      keysOnly: true,
    },
    // The listed legs whole, for the change feed's full sync: a Scan of it reads no history (docs/storage.md).
    {
      indexName: 'listedLegs',
      partitionKey: 'ls',
    },
    // Listed legs by their expiry instant (`xa`), which the minute's sweep reads from its watermark on (docs/sources.md, "Expiry and staleness").
    {
      indexName: 'byExpiryInstant',
      partitionKey: 'xp',
      sortKey: 'xa',
      keysOnly: true,
    },
  ],
  timeToLiveAttribute: 'ttl',
  stream: 'NEW_AND_OLD_IMAGES',
} as const satisfies TableDefinition;

export const LEGS_INDEX = LEGS_TABLE.indexes[0];
export const LEGS_EXPIRY_INDEX = LEGS_TABLE.indexes[1];
export const LISTED_LEGS_INDEX = LEGS_TABLE.indexes[2];
export const LEGS_EXPIRY_INSTANT_INDEX = LEGS_TABLE.indexes[3];

/**
 * Keys table: one item per key, keyed by the SHA-256 (hex) of the whole key, never the key
 * itself. `byKeyId` finds a key by its public id (`key_...`) for the `keys` command. Expired and
 * revoked keys carry `ttl` (epoch seconds) so DynamoDB TTL removes them some time later. `byClient`
 * finds a client's keys, and under `history#<clientId>` its history (docs/api-keys.md, "Storage").
 */
export const KEYS_TABLE = {
  partitionKey: 'keyHash',
  indexes: [
    { indexName: 'byKeyId', partitionKey: 'keyId' },
    { indexName: 'byClient', partitionKey: 'clientId', sortKey: 'createdAt' },
  ],
  timeToLiveAttribute: 'ttl',
} as const satisfies TableDefinition;

export const KEYS_BY_ID_INDEX = KEYS_TABLE.indexes[0];
export const KEYS_BY_CLIENT_INDEX = KEYS_TABLE.indexes[1];
/** A client's approved scopes and change counter (`client#<clientId>`), and its history items (`history#...`). */
export const CLIENT_ITEM_PREFIX = 'client#';
export const HISTORY_PREFIX = 'history#';

/**
 * The keys table also holds the per-key usage counters (src/keys/limits/usage.ts), one item per key and
 * UTC day whose keyHash starts with this prefix (and the keys version, `~version`).
 */
export const USAGE_KEY_PREFIX = 'usage#';

/**
 * Watches table (src/watches/store.ts): one item per watch, keyed by its client and its id, so a
 * client's watches are one Query and another client's key never reads them. The watches version
 * (`clientId` `~version`) tells the matchers to reload.
 */
export const WATCHES_TABLE = {
  partitionKey: 'clientId',
  sortKey: 'watchId',
  indexes: [],
} as const satisfies TableDefinition;

/**
 * Watch deliveries table: one item per delivery (an event for one watch), keyed by the watch and
 * `deliveryKey` (creation instant, then the delivery id), so a watch's recent deliveries are one
 * Query, newest first; `byDeliveryId` (keys only) finds a delivery's key by its id (a replay).
 * DynamoDB TTL removes an item 30 days after it was made.
 */
export const WATCH_DELIVERIES_TABLE = {
  partitionKey: 'watchId',
  sortKey: 'deliveryKey',
  indexes: [{ indexName: 'byDeliveryId', partitionKey: 'id', keysOnly: true }],
  timeToLiveAttribute: 'ttl',
} as const satisfies TableDefinition;

export const DELIVERIES_BY_ID_INDEX = WATCH_DELIVERIES_TABLE.indexes[0];

/**
 * Enquiries table (src/enquiries/store/): one item per enquiry (`pk` `enq#<id>`), with a client's
 * count of open enquiries (`count#<client>`) and its idempotency keys (`idem#<client>#<hash>`).
 * `byClient` and `bySeller` list a broker's and a seller's enquiries newest first; `openByLeg`
 * (sparse: open enquiries only) finds those a withdrawn leg expires. TTL deletes a closed enquiry
 * 90 days after it closed, and a key's record after its 24 hours (docs/enquiries.md, "Storage").
 */
export const ENQUIRIES_TABLE = {
  partitionKey: 'pk',
  indexes: [
    { indexName: 'byClient', partitionKey: 'bc', sortKey: 'bs' },
    { indexName: 'bySeller', partitionKey: 'sc', sortKey: 'bs' },
    { indexName: 'openByLeg', partitionKey: 'ol', sortKey: 'pk', keysOnly: true },
  ],
  timeToLiveAttribute: 'ttl',
} as const satisfies TableDefinition;

export const ENQUIRIES_BY_CLIENT_INDEX = ENQUIRIES_TABLE.indexes[0];
export const ENQUIRIES_BY_SELLER_INDEX = ENQUIRIES_TABLE.indexes[1];
export const OPEN_ENQUIRIES_BY_LEG_INDEX = ENQUIRIES_TABLE.indexes[2];

/** CreateTable input (on-demand) for DynamoDB Local and the tests. */
export function createTableInput(tableName: string, def: TableDefinition): CreateTableCommandInput {
  const names = new Set<string>([def.partitionKey]);
  if (def.sortKey) names.add(def.sortKey);
  for (const ix of def.indexes) {
    names.add(ix.partitionKey);
    if (ix.sortKey) names.add(ix.sortKey);
  }
  const keySchema = (pk: string, sk?: string) => [
    { AttributeName: pk, KeyType: 'HASH' as const },
    ...(sk ? [{ AttributeName: sk, KeyType: 'RANGE' as const }] : []),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
    KeySchema: keySchema(def.partitionKey, def.sortKey),
    ...(def.indexes.length > 0
      ? {
          GlobalSecondaryIndexes: def.indexes.map((ix) => ({
            IndexName: ix.indexName,
            KeySchema: keySchema(ix.partitionKey, ix.sortKey),
            Projection: ix.keysOnly
              ? { ProjectionType: 'KEYS_ONLY' as const }
              : ix.nonKeyAttributes
                ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...ix.nonKeyAttributes] }
                : { ProjectionType: 'ALL' as const },
          })),
        }
      : {}),
    ...(def.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: def.stream } } : {}),
  };
}

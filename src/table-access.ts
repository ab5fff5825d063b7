/** What a function may do to a table; the stack turns each into the narrowest IAM statements. */
export type TableAccess =
  /**
   * Legs table: Query on the listing index, GetItem and BatchGetItem on the table (the change log's
   * head and pages, the snapshot's manifest and parts, the legs).
   */
  | 'legs:read'
  /** Legs table: Scan (what a sync reads), BatchWriteItem (every write of the loader), GetItem and PutItem (the sync order). */
  | 'legs:load'
  /** Legs table: GetItem on the table only (one leg read by its id). */
  | 'legs:get'
  /** Legs table: Query on the `byExpiry` index (the legs due), UpdateItem on the table (a leg's retirement). */
  | 'legs:retire'
  /**
   * Legs table: Query on the listing index (what a build reads), GetItem on the change log's head and
   * entries and the snapshot's manifest only, PutItem and BatchWriteItem on the snapshot's items only
   * (ids `~snapshot...`). No Scan, no UpdateItem, no DeleteItem, no write to a leg.
   */
  | 'legs:snapshot'
  /**
   * Watches table: Query, GetItem, PutItem, DeleteItem, UpdateItem (a client's watches, the version);
   * deliveries table: Query (a watch's recent deliveries).
   */
  | 'watches:manage'
  /**
   * Watches table: GetItem and UpdateItem (a watch's failing state); deliveries table: GetItem,
   * UpdateItem (an attempt's outcome). The delivery worker.
   */
  | 'watches:deliver'
  /**
   * Watches table: GetItem, UpdateItem (a watch changed by its owner, its secret, the version);
   * deliveries table: Query of the byDeliveryId index (a delivery's key by its id), GetItem (the
   * delivery by key), UpdateItem (a replay's attempt). The owner's operations.
   */
  | 'watches:admin'
  /**
   * Watches table: Scan and BatchGetItem of MATCH_WATCH_ATTRIBUTES only (every watch, to index; the
   * watches changed: never a secret or a URL), GetItem of the version item only (its slots);
   * deliveries table: BatchGetItem and BatchWriteItem (deliveries read, then those new stored). The matcher.
   */
  | 'watches:match'
  /**
   * Keys table: BatchGetItem of clients' items only (`client#...`: CLIENT_ITEM_ATTRIBUTES), Query of
   * KEY_STATE_ATTRIBUTES on `byClient` and `byKeyId` (a client not yet tracked); never a hash, no Scan.
   * The matcher and the delivery worker (docs/watches.md, "A client without a key").
   */
  | 'keys:clients'
  /**
   * Legs table: the change feed's reads (src/changes/store.ts): GetItem and BatchGetItem on the
   * change log's items only (ids `~change...`, an IAM condition on the partition key), and Scan
   * (the initial listing a feed without a cursor starts with). No index, no write.
   */
  | 'legs:changes'
  /**
   * Legs table: the change consumer (src/changes/): read the table's stream; GetItem, BatchGetItem,
   * PutItem, UpdateItem (in TransactWriteItems) on the change log's items only (ids `~change...`,
   * `~feed#...`); UpdateItem on a leg's derived attributes only (src/changes/store-parts/reindex.ts). No Scan,
   * no Query, no other write to a leg.
   */
  | 'legs:consume'
  /** Legs table: GetItem on the sweep's state only (id `~sweep`): the sources the feed told stale (the change feed's first read). */
  | 'legs:sweep-state'
  /**
   * Legs table: the minute's sweep (src/sweep/): Query on the `byExpiryInstant` and listing indexes,
   * GetItem on the registry and its own state, PutItem on its state only (`~sweep`), UpdateItem of a
   * leg's `xs` only (the touch that makes its stream record). No Scan, no other write.
   */
  | 'legs:sweep'
  /** Legs table: GetItem on the rates in force only (id `~rates`, src/rates/store.ts): the watches' functions (a filter's currency) and matcher. */
  | 'legs:rates'
  /** Legs table: GetItem on the sources registry only (id `~sources`, src/sources/store.ts): kinds, verification, stale sources. */
  | 'legs:sources'
  /** Legs table: GetItem and PutItem on the rates in force only (id `~rates`): the scheduled rates fetch. */
  | 'legs:rates-write'
  /** Keys table: GetItem on the table (a key is read by its hash). */
  | 'keys:read'
  /**
   * Keys table: UpdateItem on the usage counter items only (keyHash `usage#...`, an IAM condition on
   * the partition key): the rate limiter's counts (src/keys/limits/usage.ts); no key item can be changed.
   */
  | 'keys:count'
  /**
   * Keys table: GetItem, Query (`byKeyId`, `byClient`), PutItem and UpdateItem (in TransactWriteItems)
   * on key, client and history items and the keys version, never on the usage counters. Key management.
   */
  | 'keys:manage'
  /**
   * Enquiries table: GetItem, PutItem, UpdateItem, DeleteItem (in TransactWriteItems too) and Query of
   * `byClient` and `bySeller`: the enquiries function (src/enquiries/). No Scan.
   */
  | 'enquiries:manage'
  /**
   * Enquiries table: Query of `openByLeg` (a withdrawn leg's open enquiries), GetItem and UpdateItem
   * (in TransactWriteItems: an enquiry expired with its client's count). The change consumer.
   */
  | 'enquiries:expire'
  /**
   * Enquiries table: GetItem (a broker's notifyUrl and secret); legs table: GetItem on the sellers'
   * items only (`~seller#...`: a seller's URL and secret). The delivery worker's enquiry events.
   */
  | 'enquiries:deliver';

/** What the matcher reads of a watch (src/watches/match/watch-source.ts) and of the watches version. */
export const MATCH_WATCH_ATTRIBUTES = ['clientId', 'watchId', 'filters', 'status', 'include', 'group'] as const;
/** What `keys:clients` reads of a client's item (its key and until when it has a working key)... */
export const CLIENT_ITEM_ATTRIBUTES = ['keyHash', 'keyedUntil'] as const;
/** ...and of a key, by the indexes (a client whose item has no `keyedUntil` yet). */
export const KEY_STATE_ATTRIBUTES = ['keyId', 'clientId', 'status', 'graceUntil'] as const;

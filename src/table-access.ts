/** What a function may do to a table; the stack turns each into the narrowest IAM statements. */
export type TableAccess =
  /**
   * Legs table: Query on the listing index and on the `byChange` index (the listing snapshot's
   * delta), GetItem and BatchGetItem on the table (the journal head, the snapshot's manifest and
   * parts, the legs).
   */
  | 'legs:read'
  /**
   * Legs table: Scan (what a sync reads), BatchWriteItem (every write of the loader, and the listing
   * snapshot's parts), GetItem and PutItem (the change journal the loader appends to, the snapshot's
   * manifest), Query on the listing index (the snapshot a large load builds at its end).
   */
  | 'legs:load'
  /** Legs table: GetItem on the table only (one leg read by its id). */
  | 'legs:get'
  /**
   * Legs table: Query on the `byExpiry` index (the legs due), UpdateItem on the table (a leg's
   * retirement), GetItem and PutItem (the change journal it appends to). No Scan, no DeleteItem.
   */
  | 'legs:retire'
  /**
   * Legs table: Query on the listing index (what a build reads), GetItem on the journal head and the
   * snapshot's manifest only, PutItem and BatchWriteItem (puts and deletes) on the snapshot's items
   * only (ids `~snapshot...`, an IAM condition on the partition key). No Scan, no UpdateItem, no
   * DeleteItem, no write to a leg.
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
   * Watches table: Scan (every watch, to index) and GetItem (the version); deliveries table: PutItem
   * and GetItem (a delivery stored once, read again when its batch is retried). The matcher.
   */
  | 'watches:match'
  /**
   * Legs table: the change feed's reads (src/changes/store.ts): GetItem and BatchGetItem on the
   * change log's items only (ids `~change...`, an IAM condition on the partition key), and Scan
   * (the initial listing a feed without a cursor starts with). No index, no write.
   */
  | 'legs:changes'
  /**
   * Legs table: the change consumer (src/changes/): read the table's stream; GetItem, BatchGetItem,
   * PutItem (in TransactWriteItems) on the change log's and the change journal's items only (ids
   * `~change...`, `~feed#...`, `~journal...`); UpdateItem of a leg's `lc` and `xp` only. No Scan, no
   * Query, no other write to a leg.
   */
  | 'legs:consume'
  /** Keys table: GetItem on the table (a key is read by its hash). */
  | 'keys:read'
  /**
   * Keys table: UpdateItem on the usage counter items only (keyHash `usage#...`, an IAM condition on
   * the partition key): the rate limiter's counts (src/keys/usage.ts); no key item can be changed.
   */
  | 'keys:count';

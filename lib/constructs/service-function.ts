import path from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Stage } from '../../src/config.js';
import { CLIENT_ITEM_PREFIX, DELIVERIES_BY_ID_INDEX, KEYS_TABLE, LEGS_EXPIRY_INDEX, LEGS_INDEX, LISTED_LEGS_INDEX, USAGE_KEY_PREFIX } from '../../src/tables.js';
import { SNAPSHOT_MANIFEST_ID } from '../../src/snapshot/snapshot.js';
import { RATES_ID } from '../../src/rates/store.js';
import { SOURCES_ID } from '../../src/sources/store.js';
import { ENTRY_PREFIX, HEAD_ID, PAGE_PREFIX, STATE_PREFIX } from '../../src/changes/store.js';
import { REINDEX_ATTRIBUTES } from '../../src/changes/store-parts/reindex.js';
import { FUNCTIONS, type FunctionName, type FunctionSpec } from '../../src/function-table.js';
import { CLIENT_ITEM_ATTRIBUTES, KEY_STATE_ATTRIBUTES, MATCH_WATCH_ATTRIBUTES, type TableAccess } from '../../src/table-access.js';
import { ARCHITECTURE, PROJECT_ROOT, RUNTIME, bundlingFor, entryPath } from '../bundling.js';
import type { LogLevel } from '../stage-config.js';

/** The environment every function reads (src/config.ts, src/logger.ts). */
export const ENV = {
  stage: 'STAGE',
  legsTableName: 'LEGS_TABLE_NAME',
  keysTableName: 'KEYS_TABLE_NAME',
  watchesTableName: 'WATCHES_TABLE_NAME',
  deliveriesTableName: 'WATCH_DELIVERIES_TABLE_NAME',
  webhookQueueUrl: 'WEBHOOK_QUEUE_URL',
  webhookSlowQueueUrl: 'WEBHOOK_SLOW_QUEUE_URL',
  ratesUrl: 'RATES_URL',
  listingCacheTtlSeconds: 'LISTING_CACHE_TTL_SECONDS',
  failedAuthPerMinute: 'FAILED_AUTH_PER_MINUTE',
  failedAuthBurst: 'FAILED_AUTH_BURST',
  /** The authorizer's: the secret CloudFront sends (lib/constructs/edge.ts). */
  originSecret: 'ORIGIN_SECRET',
  logLevel: 'POWERTOOLS_LOG_LEVEL',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  nodeOptions: 'NODE_OPTIONS',
  /** Never set on a deployed function (README, "Settings"); see `samLocal`. */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
} as const;

export const SERVICE_NAME = 'empty-legs';

/** A read's condition: only these attributes, by a projection (`dynamodb:Attributes`, `dynamodb:Select`). */
function onlyAttributes(names: readonly string[]): Record<string, Record<string, string[]>> {
  return { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...names] }, StringEqualsIfExists: { 'dynamodb:Select': ['SPECIFIC_ATTRIBUTES'] } };
}

export interface ServiceFunctionProps {
  /**
   * Which function of the table (src/routes.ts FUNCTIONS) this is: its entry, logical id,
   * description, memory and timeout come from there.
   */
  readonly name: FunctionName;
  readonly stage: Stage;
  readonly logLevel: LogLevel;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Only for `cdk synth -c samLocal=true`: declares DYNAMODB_ENDPOINT (empty, which the functions
   * read as "real AWS") so that `sam local --env-vars` can override it; sam only overrides variables
   * that the template declares. Deployed stacks never have it.
   */
  readonly samLocal?: boolean;
  /** Reserved concurrency (src/function-table.ts `concurrency`): a share no other function takes, and a ceiling. */
  readonly reservedConcurrency?: number;
}

/**
 * A Lambda function with the service's defaults: NodejsFunction bundled by esbuild with the
 * settings of lib/bundling.ts, nodejs22.x on arm64, its own log group with retention, and its own
 * role that starts with nothing but writing to that log group (no managed policies). Tables are
 * bound with the narrowest grant the function needs (`readLegs`, `readKeys`).
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const spec: FunctionSpec = FUNCTIONS[props.name];
    const given = Object.keys(props.environment ?? {}).sort();
    if (given.join(',') !== [...spec.environment].sort().join(',')) {
      throw new Error(`${props.name}: environment ${given.join(', ') || '(none)'} differs from src/routes.ts (${spec.environment.join(', ') || 'none'})`);
    }

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${spec.description} (${props.stage})`,
    });
    // Instead of the managed AWSLambdaBasicExecutionRole (logs on every log group of the account):
    // write to this function's own log group only.
    this.allow(['logs:CreateLogStream', 'logs:PutLogEvents'], this.logGroup.logGroupArn);

    this.function = new NodejsFunction(this, 'Function', {
      entry: entryPath(props.name),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: RUNTIME,
      architecture: ARCHITECTURE,
      memorySize: spec.memorySize,
      timeout: Duration.seconds(spec.timeoutSeconds),
      description: spec.description,
      role: this.role,
      logGroup: this.logGroup,
      ...(props.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      bundling: bundlingFor(props.name),
      environment: {
        [ENV.stage]: props.stage,
        [ENV.logLevel]: props.logLevel,
        [ENV.serviceName]: SERVICE_NAME,
        [ENV.nodeOptions]: '--enable-source-maps',
        ...props.environment,
        ...(props.samLocal ? { [ENV.dynamodbEndpoint]: '' } : {}),
      },
    });
    (this.function.node.defaultChild as CfnFunction).overrideLogicalId(spec.logicalId);
  }

  /** One Allow statement of `actions` on `resource` (or each of `resources`) in the function's role. */
  private allow(actions: string[], resource: string | readonly string[], conditions?: Record<string, Record<string, string[]>>): void {
    const resources = typeof resource === 'string' ? [resource] : [...resource];
    this.role.addToPrincipalPolicy(new PolicyStatement({ effect: Effect.ALLOW, actions, resources, ...(conditions ? { conditions } : {}) }));
  }

  /** Grants each declared access (src/routes.ts `access`) with the narrowest statements. */
  grant(access: readonly TableAccess[], tables: { legs?: ITable; keys?: ITable; watches?: ITable; deliveries?: ITable }): this {
    const table = (t: ITable | undefined, a: TableAccess): ITable => {
      if (!t) throw new Error(`${this.node.path}: '${a}' needs its table`);
      return t;
    };
    for (const a of access) {
      switch (a) {
        case 'legs:read':
          this.readLegs(table(tables.legs, a));
          break;
        case 'legs:load':
          this.loadLegs(table(tables.legs, a));
          break;
        case 'legs:get':
          this.getLegs(table(tables.legs, a));
          break;
        case 'legs:retire':
          this.retireLegs(table(tables.legs, a));
          break;
        case 'legs:snapshot':
          this.buildSnapshot(table(tables.legs, a));
          break;
        case 'legs:changes':
          this.readChanges(table(tables.legs, a));
          break;
        case 'legs:consume':
          this.consumeChanges(table(tables.legs, a));
          break;
        case 'legs:rates':
          this.readRates(table(tables.legs, a), ['dynamodb:GetItem']);
          break;
        case 'legs:rates-write':
          this.readRates(table(tables.legs, a), ['dynamodb:GetItem', 'dynamodb:PutItem']);
          break;
        case 'keys:read':
          this.readKeys(table(tables.keys, a));
          break;
        case 'keys:count':
          this.countUsage(table(tables.keys, a));
          break;
        case 'keys:clients':
          this.readKeyClients(table(tables.keys, a));
          break;
        case 'keys:manage':
          this.manageKeys(table(tables.keys, a));
          break;
        case 'watches:manage':
          this.manageWatches(table(tables.watches, a), table(tables.deliveries, a));
          break;
        case 'watches:deliver':
          this.deliverWatches(table(tables.watches, a), table(tables.deliveries, a));
          break;
        case 'watches:match':
          this.matchWatches(table(tables.watches, a), table(tables.deliveries, a));
          break;
        case 'watches:admin':
          this.administerWatches(table(tables.watches, a), table(tables.deliveries, a));
          break;
      }
    }
    return this;
  }

  /**
   * The ingest function's access to the legs table: Scan (what a sync reads), BatchWriteItem (every
   * write of the loader), GetItem and PutItem (each source's last sync file). No index, no DeleteItem.
   */
  loadLegs(table: ITable): this {
    this.allow(['dynamodb:Scan', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:PutItem'], table.tableArn);
    this.function.addEnvironment(ENV.legsTableName, table.tableName);
    return this;
  }

  /**
   * The retiring function's access to the legs table (src/retirement/retire-legs.ts): Query on the
   * `byExpiry` index only, UpdateItem on the table (a leg's retirement). No Scan, no DeleteItem
   * (DynamoDB TTL deletes).
   */
  retireLegs(table: ITable): this {
    this.allow(['dynamodb:Query'], `${table.tableArn}/index/${LEGS_EXPIRY_INDEX.indexName}`);
    this.allow(['dynamodb:UpdateItem'], table.tableArn);
    this.function.addEnvironment(ENV.legsTableName, table.tableName);
    return this;
  }

  /**
   * The snapshot build's access to the legs table (src/snapshot/snapshot-build.ts,
   * src/snapshot/handler.ts): Query on the listing index only (what it reads); GetItem on the
   * change log's head and entries and the snapshot's manifest; PutItem (the manifest) and
   * BatchWriteItem (the parts, put and deleted) only on items whose id starts with `~snapshot`.
   * The item conditions are `dynamodb:LeadingKeys` on the table's partition key, `ForAllValues`:
   * every key of a batch must match. No Scan, no UpdateItem, no DeleteItem, no other index, nothing
   * that reads or writes a leg's item.
   */
  buildSnapshot(table: ITable): this {
    this.allow(['dynamodb:Query'], `${table.tableArn}/index/${LEGS_INDEX.indexName}`);
    this.allow(['dynamodb:GetItem'], table.tableArn, {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [HEAD_ID, `${ENTRY_PREFIX}*`, SNAPSHOT_MANIFEST_ID] },
    });
    this.allow(['dynamodb:PutItem', 'dynamodb:BatchWriteItem'], table.tableArn, {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${SNAPSHOT_MANIFEST_ID}*`] },
    });
    this.function.addEnvironment(ENV.legsTableName, table.tableName);
    return this;
  }

  /**
   * The list function's access to the legs table: Query on the listing index, GetItem and
   * BatchGetItem on the table (the change log's head and entries, the snapshot's manifest and parts,
   * the legs). Nothing else (no Scan, no writes, no other index).
   */
  readLegs(table: ITable): this {
    this.allow(['dynamodb:Query'], `${table.tableArn}/index/${LEGS_INDEX.indexName}`);
    this.allow(['dynamodb:GetItem', 'dynamodb:BatchGetItem'], table.tableArn);
    this.function.addEnvironment(ENV.legsTableName, table.tableName);
    return this;
  }

  /**
   * The change feed's access to the legs table (src/changes/store.ts): GetItem and BatchGetItem on
   * the change log's head and entries and the sources registry only (ids `~changes`, `~change#...`,
   * `~sources`, for `include=provenance`: `dynamodb:LeadingKeys`),
   * and Scan on the `listedLegs` index only (the initial listing). No Query, no Scan of the table, no write.
   */
  readChanges(table: ITable): this {
    this.allow(['dynamodb:GetItem', 'dynamodb:BatchGetItem'], table.tableArn, {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [HEAD_ID, `${ENTRY_PREFIX}*`, SOURCES_ID] },
    });
    this.allow(['dynamodb:Scan'], `${table.tableArn}/index/${LISTED_LEGS_INDEX.indexName}`);
    this.function.addEnvironment(ENV.legsTableName, table.tableName);
    return this;
  }

  /**
   * The change consumer's access to the legs table (src/changes/store.ts): GetItem, BatchGetItem
   * PutItem and UpdateItem (the actions of its TransactWriteItems) on the change log's items only
   * (the head, the entries, the legs' states, the index pages), by `dynamodb:LeadingKeys`. Reading the stream is granted by its
   * event source mapping (lib/constructs/change-stream.ts). UpdateItem on a leg, for its derived
   * attributes only (`dynamodb:Attributes`: src/changes/store-parts/reindex.ts). No Scan, no Query, no Put or Delete of a leg.
   */
  consumeChanges(table: ITable): this {
    this.allow(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], table.tableArn, {
      'ForAllValues:StringLike': {
        'dynamodb:LeadingKeys': [HEAD_ID, `${ENTRY_PREFIX}*`, `${STATE_PREFIX}*`, `${PAGE_PREFIX}*`],
      },
    });
    this.allow(['dynamodb:UpdateItem'], table.tableArn, {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...REINDEX_ATTRIBUTES] },
    });
    this.function.addEnvironment(ENV.legsTableName, table.tableName);
    return this;
  }

  /** `actions` on the rates in force only (id `~rates`, src/rates/store.ts), by `dynamodb:LeadingKeys`. */
  readRates(table: ITable, actions: string[]): this {
    this.allow(actions, table.tableArn, { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [RATES_ID] } });
    this.function.addEnvironment(ENV.legsTableName, table.tableName);
    return this;
  }

  /**
   * The by-id function's access to the legs table: GetItem on the table, nothing else (no Query, no
   * batch read, no index, no write).
   */
  getLegs(table: ITable): this {
    this.allow(['dynamodb:GetItem'], table.tableArn);
    this.function.addEnvironment(ENV.legsTableName, table.tableName);
    return this;
  }

  /**
   * The watches function's access (src/watches/store.ts): on the watches table Query (a client's
   * watches), GetItem, PutItem, DeleteItem and UpdateItem (the version); on the deliveries table
   * Query only (a watch's recent deliveries). No Scan.
   */
  manageWatches(watches: ITable, deliveries: ITable): this {
    this.allow(['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'], watches.tableArn);
    this.allow(['dynamodb:Query'], deliveries.tableArn);
    this.function.addEnvironment(ENV.watchesTableName, watches.tableName);
    this.function.addEnvironment(ENV.deliveriesTableName, deliveries.tableName);
    return this;
  }

  /**
   * The delivery worker's access: GetItem and UpdateItem on the watches table (a watch, its failing
   * state) and on the deliveries table (a delivery's attempts). No Query, Scan, Put or Delete.
   */
  deliverWatches(watches: ITable, deliveries: ITable): this {
    this.allow(['dynamodb:GetItem', 'dynamodb:UpdateItem'], [watches.tableArn, deliveries.tableArn]);
    this.function.addEnvironment(ENV.watchesTableName, watches.tableName);
    this.function.addEnvironment(ENV.deliveriesTableName, deliveries.tableName);
    return this;
  }

  /**
   * The owner's operations (src/watch-admin/): GetItem and UpdateItem on the watches table (a watch,
   * its change, its secret, the version), GetItem and UpdateItem on the deliveries table (a delivery
   * by key, a replay's attempt) and Query on its `byDeliveryId` index only (a key by id). No Scan, Put or Delete.
   */
  administerWatches(watches: ITable, deliveries: ITable): this {
    this.allow(['dynamodb:GetItem', 'dynamodb:UpdateItem'], watches.tableArn);
    this.allow(['dynamodb:GetItem', 'dynamodb:UpdateItem'], deliveries.tableArn);
    this.allow(['dynamodb:Query'], `${deliveries.tableArn}/index/${DELIVERIES_BY_ID_INDEX.indexName}`);
    this.function.addEnvironment(ENV.watchesTableName, watches.tableName);
    this.function.addEnvironment(ENV.deliveriesTableName, deliveries.tableName);
    return this;
  }

  /**
   * The matcher's access (src/watches/match/): Scan and BatchGetItem on the watches table of the
   * attributes matching needs only (every watch, indexed; the watches changed: `dynamodb:Attributes`,
   * never a secret or a URL), GetItem of the version item only (`dynamodb:LeadingKeys`),
   * BatchGetItem and BatchWriteItem on the deliveries table (the deliveries stored before; those
   * new). No Query, Update or Delete.
   */
  matchWatches(watches: ITable, deliveries: ITable): this {
    this.allow(['dynamodb:Scan', 'dynamodb:BatchGetItem'], watches.tableArn, onlyAttributes(MATCH_WATCH_ATTRIBUTES));
    this.allow(['dynamodb:GetItem'], watches.tableArn, { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['~version'] } });
    this.allow(['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'], deliveries.tableArn);
    this.function.addEnvironment(ENV.watchesTableName, watches.tableName);
    this.function.addEnvironment(ENV.deliveriesTableName, deliveries.tableName);
    return this;
  }

  /**
   * The authorizer's access to the usage counters (src/keys/limits/usage.ts): UpdateItem on the keys table,
   * only on items whose partition key starts with `usage#` (dynamodb:LeadingKeys), so the function
   * that counts cannot change a key.
   */
  countUsage(table: ITable): this {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${USAGE_KEY_PREFIX}*`] } },
      }),
    );
    this.function.addEnvironment(ENV.keysTableName, table.tableName);
    return this;
  }

  /**
   * Which clients have a key (src/watches/match/active-clients.ts): BatchGetItem of clients' items
   * only (`client#...`, dynamodb:LeadingKeys) and of their `keyedUntil`; Query on `byClient` and
   * `byKeyId` of a key's id, client, state and grace (a client not tracked yet). Never a key's hash, no Scan.
   */
  readKeyClients(table: ITable): this {
    this.allow(['dynamodb:BatchGetItem'], table.tableArn, {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${CLIENT_ITEM_PREFIX}*`] },
      ...onlyAttributes(CLIENT_ITEM_ATTRIBUTES),
    });
    this.allow(['dynamodb:Query'], KEYS_TABLE.indexes.map((ix) => `${table.tableArn}/index/${ix.indexName}`), onlyAttributes(KEY_STATE_ATTRIBUTES));
    this.function.addEnvironment(ENV.keysTableName, table.tableName);
    return this;
  }

  /**
   * The authorizer's access to the keys table: GetItem on the table (a key is found by the hash of
   * the key, the table's partition key). `withKeyIdIndex` adds Query on the `byKeyId` index, for a
   * function that looks keys up by their public id.
   */
  /**
   * Key management (src/api-keys/): GetItem, Query on both indexes, PutItem and UpdateItem on items
   * whose partition key is a key's hash, a client's item, a history item or the keys version
   * (dynamodb:LeadingKeys), never on the usage counters.
   */
  manageKeys(table: ITable): this {
    this.allow(['dynamodb:GetItem'], table.tableArn);
    this.allow(['dynamodb:Query'], KEYS_TABLE.indexes.map((ix) => `${table.tableArn}/index/${ix.indexName}`));
    this.allow(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'], table.tableArn, {
      'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': [`${USAGE_KEY_PREFIX}*`] },
    });
    this.function.addEnvironment(ENV.keysTableName, table.tableName);
    return this;
  }

  readKeys(table: ITable, options: { withKeyIdIndex?: boolean } = {}): this {
    this.allow(['dynamodb:GetItem'], table.tableArn);
    if (options.withKeyIdIndex) {
      const index = KEYS_TABLE.indexes[0];
      this.allow(['dynamodb:Query'], `${table.tableArn}/index/${index.indexName}`);
    }
    this.function.addEnvironment(ENV.keysTableName, table.tableName);
    return this;
  }
}

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isSource } from '../kernel/source.js';
import {
  applyChange,
  EMPTY_REGISTRY,
  SOURCE_KINDS,
  UNREGISTERED,
  type Registry,
  type RegisteredSource,
  type SourceHistoryEntry,
  type SourceSettings,
} from './registry.js';

/**
 * The registry: one item `~sources` in the legs table, which the change consumer ignores (a service
 * item), with per source `s.<id>` its settings, `h.<id>` its history and `l.<id>` its last
 * successful load (epoch ms), `y.<id>` its last complete sync, and `rev`, counting its writes (docs/sources.md, "Storage").
 */
export const SOURCES_ID = '~sources';
const SETTINGS = 's.';
const HISTORY = 'h.';
const LOADED = 'l.';
const SYNCED = 'y.';
const SET_ATTEMPTS = 5;

type Item = Readonly<Record<string, unknown>>;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function settingsOfItem(value: unknown): SourceSettings {
  if (typeof value !== 'object' || value === null) return UNREGISTERED;
  const r = value as Item;
  const kind = (SOURCE_KINDS as readonly unknown[]).includes(r.kind) ? (r.kind as SourceSettings['kind']) : 'unknown';
  return {
    name: typeof r.name === 'string' ? r.name : null,
    kind,
    verified: r.verified === true,
    verifiedAt: r.verified === true ? num(r.verifiedAt) : null,
    staleAfterMinutes: num(r.staleAfterMinutes),
    staleAfterSetAt: num(r.staleAfterSetAt),
  };
}

/** A history entry's change as stored: the known fields of their types only. */
function changeOfItem(value: unknown): SourceHistoryEntry['change'] {
  if (typeof value !== 'object' || value === null) return {};
  const r = value as Item;
  const change: SourceHistoryEntry['change'] = {};
  if (typeof r.name === 'string') change.name = r.name;
  if ((SOURCE_KINDS as readonly unknown[]).includes(r.kind)) change.kind = r.kind as SourceHistoryEntry['change']['kind'];
  if (typeof r.verified === 'boolean') change.verified = r.verified;
  if (r.staleAfterMinutes === null || num(r.staleAfterMinutes) !== null) change.staleAfterMinutes = r.staleAfterMinutes as number | null;
  return change;
}

function historyOfItem(value: unknown): SourceHistoryEntry[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((e: unknown) => {
    if (typeof e !== 'object' || e === null) return [];
    const r = e as Item;
    const at = num(r.at);
    return at === null || typeof r.run !== 'string' ? [] : [{ at, run: r.run, change: changeOfItem(r.change) }];
  });
}

/** The registry of a stored item; the empty one when there is none. */
export function registryOfItem(item: Item | undefined): Registry {
  if (item === undefined) return EMPTY_REGISTRY;
  const sources = new Map<string, RegisteredSource>();
  const lastLoadedAt = new Map<string, number>();
  const lastSyncedAt = new Map<string, number>();
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(SETTINGS) && isSource(name.slice(SETTINGS.length))) {
      const id = name.slice(SETTINGS.length);
      sources.set(id, { settings: settingsOfItem(value), history: historyOfItem(item[HISTORY + id]) });
    } else if (name.startsWith(LOADED) && isSource(name.slice(LOADED.length)) && num(value) !== null) {
      lastLoadedAt.set(name.slice(LOADED.length), value as number);
    } else if (name.startsWith(SYNCED) && isSource(name.slice(SYNCED.length)) && num(value) !== null) {
      lastSyncedAt.set(name.slice(SYNCED.length), value as number);
    }
  }
  return { sources, lastLoadedAt, lastSyncedAt, revision: num(item.rev) ?? 0 };
}

/** Port of the registry. */
export interface SourcesStore {
  read(): Promise<Registry>;
  /** Applies a `sources set` run's change to `id`, kept in its history; answers the settings after it. */
  set(id: string, change: SourceHistoryEntry['change'], run: { id: string; at: number }): Promise<SourceSettings>;
  /** Records a successful load, sync or ingest of `sources` at `at`; of `synced`, a complete sync (`lastSyncedAt`). */
  recordLoads(sources: readonly string[], at: number, synced?: readonly string[]): Promise<void>;
}

export function createSourcesStore(client: DynamoDBDocumentClient, tableName: string): SourcesStore {
  const read = async (): Promise<Registry> =>
    registryOfItem((await client.send(new GetCommand({ TableName: tableName, Key: { id: SOURCES_ID }, ConsistentRead: true }))).Item);
  return {
    read,
    async set(id, change, run) {
      for (let attempt = 1; ; attempt++) {
        const before = await read();
        const settings = applyChange(before.sources.get(id)?.settings ?? UNREGISTERED, change, run.at);
        const entry: SourceHistoryEntry = { at: run.at, run: run.id, change };
        try {
          await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: { id: SOURCES_ID },
              UpdateExpression: 'SET #s = :s, #h = list_append(if_not_exists(#h, :none), :entry) ADD rev :one',
              ConditionExpression: before.revision === 0 ? 'attribute_not_exists(rev)' : 'rev = :rev',
              ExpressionAttributeNames: { '#s': SETTINGS + id, '#h': HISTORY + id },
              ExpressionAttributeValues: {
                ':s': settings,
                ':none': [],
                ':entry': [entry],
                ':one': 1,
                ...(before.revision === 0 ? {} : { ':rev': before.revision }),
              },
            }),
          );
          return settings;
        } catch (err) {
          if (!(err instanceof ConditionalCheckFailedException) || attempt >= SET_ATTEMPTS) throw err;
        }
      }
    },
    async recordLoads(sources, at, synced = []) {
      const ids = [...new Set(sources)].filter(isSource);
      if (ids.length === 0) return;
      const names: Record<string, string> = {};
      const sets = ids.map((id, i) => {
        names[`#l${i}`] = LOADED + id;
        return `#l${i} = :at`;
      });
      [...new Set(synced)].filter(isSource).forEach((id, i) => {
        names[`#y${i}`] = SYNCED + id;
        sets.push(`#y${i} = :at`);
      });
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { id: SOURCES_ID },
          UpdateExpression: `SET ${sets.join(', ')} ADD rev :one`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':at': at, ':one': 1 },
        }),
      );
    },
  };
}

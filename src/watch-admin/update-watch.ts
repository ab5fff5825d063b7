import { AppError, invalidParameter } from '../errors.js';
import { checkResolvedTarget, parseStoredFilters, parseWatchBody, publicWatch, ratesFor, requireWatch, type FilterDependencies, type Watch, type WatchDependencies, type WatchRecord } from '../watches/index.js';
import { updateWatch, type WatchChange } from './store.js';

/**
 * PATCH /open/v1/watches/{id} (docs/api.md, "Changing a watch"): the fields given replace the
 * watch's, the result validated exactly as a new watch is; `enabled: true` turns a disabled watch on
 * again, with its failing period forgotten.
 */
export const PATCH_FIELDS = ['url', 'filters', 'description', 'include', 'enabled'] as const;

export type UpdateDependencies = Pick<WatchDependencies, 'tables' | 'airports' | 'targets' | 'resolver' | 'clock' | 'rates'>;

/** The change a PATCH body makes to `current`: pure (the URL check, the airports and the rates read before aside). */
export function changeOf(body: unknown, current: WatchRecord, deps: FilterDependencies, now: number): WatchChange {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidParameter('body', 'must be a JSON object');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((k) => !(PATCH_FIELDS as readonly string[]).includes(k));
  if (unknown !== undefined) throw invalidParameter('body', `unknown field '${unknown}': a watch's url, filters, description, include and enabled can be changed`);
  if (Object.keys(fields).length === 0) throw invalidParameter('body', `must give at least one of ${PATCH_FIELDS.join(', ')}`);
  const { enabled } = fields;
  if (enabled !== undefined && typeof enabled !== 'boolean') throw invalidParameter('enabled', 'must be true or false');
  const merged = {
    url: 'url' in fields ? fields.url : current.url,
    filters: 'filters' in fields ? fields.filters : undefined,
    description: 'description' in fields ? fields.description : current.description,
    include: 'include' in fields ? fields.include : current.include,
    group: current.group,
  };
  const parsed = parseWatchBody(merged, deps);
  // Filters kept must still parse, as the matcher parses them (a currency the rates dropped is kept).
  if (!('filters' in fields)) parseStoredFilters(current.filters, deps.airports);
  const change: WatchChange = {};
  if ('url' in fields) change.url = parsed.url;
  if ('filters' in fields) change.filters = parsed.filters;
  if ('description' in fields) change.description = parsed.description;
  // An empty `include` (or null) takes the blocks off.
  if ('include' in fields) change.include = parsed.include ?? '';
  if (enabled === true && current.status !== 'active') Object.assign(change, { status: 'active', disabledAt: null, failingSince: null });
  if (enabled === false && current.status !== 'disabled') Object.assign(change, { status: 'disabled', disabledAt: new Date(now).toISOString() });
  return change;
}

export async function changeWatch(clientId: string, watchId: string, body: unknown, deps: UpdateDependencies): Promise<Watch> {
  const current = await requireWatch(clientId, watchId, deps);
  const given = typeof body === 'object' && body !== null && 'filters' in body ? body.filters : undefined;
  const change = changeOf(body, current, { ...deps, ratesInForce: await ratesFor(given, deps) }, deps.clock());
  if (change.url !== undefined) await checkResolvedTarget(change.url, deps);
  if (!(await updateWatch(deps.tables, current, change))) throw new AppError('NOT_FOUND', 'No watch with this id');
  return publicWatch({ ...current, ...change });
}

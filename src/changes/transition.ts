import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { toApiRecord, type EmptyLeg } from '../kernel/model.js';
import { derivedIndexKeyOf, type IndexKey } from '../kernel/leg-change.js';
import { IndexEntryReader } from '../kernel/index-entry.js';
import { DEP_TIME_PATTERN, TOUCH_ATTR, TTL_ATTR } from '../kernel/leg-item.js';
import { departureTimesOf } from '../kernel/leg/registration.js';
import { DEFAULT_SOURCE, sourceOf } from '../kernel/source.js';
import type { LegFacts } from '../kernel/leg/blocks.js';

/**
 * One item change of the legs table as its stream tells it: the item's id, the stream's sequence
 * number (increasing for one item), and its images before and after (undefined: no item).
 */
export interface ItemChange {
  id: string;
  sequenceNumber: string;
  oldImage: Readonly<Record<string, unknown>> | undefined;
  newImage: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Why a leg left the listing (docs/api.md, "Change feed"): what its item says, in this order of
 * precedence; a watch adds `no_longer_matching` (docs/watches.md).
 */
export const WITHDRAW_REASONS = ['deleted', 'sold', 'blocked', 'unlisted', 'expired', 'stale'] as const;
export type WithdrawReason = (typeof WITHDRAW_REASONS)[number];

/** Which sources are stale at the consumer's instant (src/sources: the registry read with the batch). */
export type StaleSources = (source: string) => boolean;

/**
 * A listing transition: the leg `id` as the unfiltered listing showed it `before` and shows it
 * `after` (null: not listed), at `changedAt` (ISO 8601, when it reached the change log); with
 * `after` null, `reason` says why (`withdrawReasonOf`).
 */
export interface ListingTransition {
  id: string;
  changedAt: string;
  /**
   * What names the change across retries of its batch: the stream record's sequence number (set by
   * the consumer; a subscriber keys what it makes of the change by it, never by `changedAt`).
   */
  changeId?: string;
  before: EmptyLeg | null;
  after: EmptyLeg | null;
  /**
   * What the leg's index entry says beyond its record, before and after: its source (src/kernel/source.ts;
   * absent: `default`) and its confirmed instant (epoch ms; absent: unknown). What the watches' seller filters read.
   */
  beforeFacts?: EntryFacts;
  afterFacts?: EntryFacts;
  /** What `include` reads of the leg's item after the change (the log state's; absent: withdrawn, or a state written before). */
  legFacts?: LegFacts;
  reason?: WithdrawReason;
}

export interface EntryFacts {
  source?: string;
  confirmedAt?: number;
  /** Its departure times (`HH:mm`) as its entry's last part keeps them: what one flight's window reads (src/kernel/leg/registration.ts). */
  depTimeFrom?: string;
  depTimeTo?: string;
}

/** A state item's attributes (src/changes/store.ts) for its leg's source (when not `default`) and confirmed instant (when known). */
export const STATE_SOURCE_ATTR = 's';
export const STATE_CONFIRMED_ATTR = 'c';
/** A state item's attributes for its leg's departure times, when its entry keeps them. */
export const STATE_DEP_FROM_ATTR = 'hf';
export const STATE_DEP_TO_ATTR = 'ht';

/** A side's facts from a source, a confirmed instant and departure times; undefined when they say nothing (`default`, unknown, none). */
export function entryFacts(source: unknown, confirmedAt: unknown, depTimeFrom?: unknown, depTimeTo?: unknown): EntryFacts | undefined {
  const facts: EntryFacts = {};
  if (typeof source === 'string' && source !== DEFAULT_SOURCE) facts.source = source;
  if (typeof confirmedAt === 'number' && Number.isFinite(confirmedAt)) facts.confirmedAt = confirmedAt;
  if (typeof depTimeFrom === 'string' && DEP_TIME_PATTERN.test(depTimeFrom)) facts.depTimeFrom = depTimeFrom;
  if (typeof depTimeTo === 'string' && DEP_TIME_PATTERN.test(depTimeTo)) facts.depTimeTo = depTimeTo;
  return Object.keys(facts).length === 0 ? undefined : facts;
}

/** The facts of an item's image: its source, confirmed instant and, with a registration, its departure times. */
export function imageFacts(image: Readonly<Record<string, unknown>> | undefined): EntryFacts | undefined {
  const timed = typeof image?.registration === 'string';
  return entryFacts(image?.source, image?.confirmedAt, timed ? image?.depTimeFrom : undefined, timed ? image?.depTimeTo : undefined);
}

/** The facts attributes of a listed leg's state, from its listing index entry (its tenth and eleventh fields, its last part's times). */
export function stateFacts(index: IndexKey | undefined): Record<string, string | number> {
  const entry = index === undefined ? undefined : new IndexEntryReader().fromFilter('', index.ls.slice(0, 10), index.lf);
  if (entry === undefined) return {};
  const facts = entryFacts(entry.source, entry.confirmedAt);
  const times = departureTimesOf(entry);
  return {
    ...(facts?.source === undefined ? {} : { [STATE_SOURCE_ATTR]: facts.source }),
    ...(facts?.confirmedAt === undefined ? {} : { [STATE_CONFIRMED_ATTR]: facts.confirmedAt }),
    ...(times.depTimeFrom === undefined ? {} : { [STATE_DEP_FROM_ATTR]: times.depTimeFrom }),
    ...(times.depTimeTo === undefined ? {} : { [STATE_DEP_TO_ATTR]: times.depTimeTo }),
  };
}

/** A transition's facts, as `ListingTransition` gives them. */
export function transitionFacts(before: EntryFacts | undefined, after: EntryFacts | undefined): Pick<ListingTransition, 'beforeFacts' | 'afterFacts'> {
  return { ...(before === undefined ? {} : { beforeFacts: before }), ...(after === undefined ? {} : { afterFacts: after }) };
}

/** Ids of the table's own bookkeeping items (snapshot, change log, sync order) start with this; a leg's never does. */
export const SERVICE_ITEM_PREFIX = '~';

/**
 * The leg as the listing shows it, or null when the listing does not list it: an item whose fields
 * give it a listing index entry (listed, not blocked, not retired, its dates a span), whatever
 * index attributes it holds: a hand edit is seen as the loader would write it.
 */
export function shownLeg(image: Readonly<Record<string, unknown>> | undefined): EmptyLeg | null {
  return derivedIndexKeyOf(image) === undefined ? null : toApiRecord(image!);
}

/** The epoch ms from which the leg of an index entry is expired (the listing's `expiresAt`). */
export function expiresAtOf(index: IndexKey): number {
  return new IndexEntryReader().read({ ls: index.ls, lf: index.lf, id: '' })?.expiresAt ?? Number.NEGATIVE_INFINITY;
}

/**
 * Why an item is not listed at `now`, or undefined when it is: deleted, `sold`, `blocked`,
 * `unlisted` (or no flyable span), `expired` (retired, or its expiry instant passed), `stale` (its source).
 */
export function withdrawReasonOf(image: Readonly<Record<string, unknown>> | undefined, now: number, stale?: StaleSources): WithdrawReason | undefined {
  if (image === undefined) return 'deleted';
  if (image.sold === true) return 'sold';
  if (image.blocked === true) return 'blocked';
  if (image[TTL_ATTR] !== undefined) return 'expired';
  const index = derivedIndexKeyOf(image);
  if (index === undefined) return 'unlisted';
  if (expiresAtOf(index) <= now) return 'expired';
  if (stale?.(sourceOf(image)) === true) return 'stale';
  return undefined;
}

/**
 * The transition of one item change at `changedAt` (epoch ms); undefined for a bookkeeping item. The
 * leg after it is shown only while listed at `changedAt`: an expired leg or one of a stale source is not.
 */
export function transitionOf(change: ItemChange, changedAt: number, stale?: StaleSources): ListingTransition | undefined {
  if (change.id.startsWith(SERVICE_ITEM_PREFIX)) return undefined;
  const reason = withdrawReasonOf(change.newImage, changedAt, stale);
  const after = reason === undefined ? shownLeg(change.newImage) : null;
  return {
    id: change.id,
    changedAt: new Date(changedAt).toISOString(),
    changeId: change.sequenceNumber,
    // A sweep's touch of a leg listed now has no `before`: a log that never gave the leg (first written
    // while its source was stale) lists it; one that did compares with its state.
    before: after !== null && isTouch(change) ? null : shownLeg(change.oldImage),
    after,
    ...transitionFacts(imageFacts(change.oldImage), imageFacts(change.newImage)),
    ...(reason === undefined ? {} : { reason }),
  };
}

/** True when the change is the sweep's touch (src/sweep/store.ts): a new touch instant. */
export function isTouch(change: Pick<ItemChange, 'oldImage' | 'newImage'>): boolean {
  const at = change.newImage?.[TOUCH_ATTR];
  return typeof at === 'number' && at !== change.oldImage?.[TOUCH_ATTR];
}

type Image = Record<string, AttributeValue>;

/** A stream record (as Lambda delivers it) as an item change; undefined when it has no string `id` key. */
export function itemChangeOf(record: DynamoDBRecord): ItemChange | undefined {
  const d = record.dynamodb;
  const id = d?.Keys?.id?.S;
  if (id === undefined || d?.SequenceNumber === undefined) return undefined;
  return {
    id,
    sequenceNumber: d.SequenceNumber,
    oldImage: d.OldImage ? unmarshall(d.OldImage as Image) : undefined,
    newImage: d.NewImage ? unmarshall(d.NewImage as Image) : undefined,
  };
}

/**
 * Stream sequence numbers are decimal strings of up to 40 digits, increasing within a shard (and
 * so for one item); compared as numbers.
 */
export function compareSequenceNumbers(a: string, b: string): number {
  const x = a.replace(/^0+/, '');
  const y = b.replace(/^0+/, '');
  return x.length !== y.length ? x.length - y.length : x < y ? -1 : x > y ? 1 : 0;
}

/**
 * A subscriber of the change consumer: called with each batch's transitions, in stream order, once
 * the change log has their entries; it must bear a batch given again (delivery is at least once), and
 * a throw fails the batch, which is retried (docs/watches.md, "The change log's port").
 */
export type TransitionSubscriber = (transitions: readonly ListingTransition[]) => Promise<void>;

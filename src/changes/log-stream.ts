import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { toApiRecord, type EmptyLeg } from '../kernel/model.js';
import { unpackRecord } from '../kernel/record-pack.js';
import { factsOfStored } from '../kernel/leg/blocks.js';
import { CODE_REASON, STATE_PREFIX } from './store.js';
import { entryFacts, STATE_CONFIRMED_ATTR, STATE_DEP_FROM_ATTR, STATE_DEP_TO_ATTR, STATE_SOURCE_ATTR, transitionFacts, type ListingTransition } from './transition.js';

/**
 * The change log as a stream (docs/watches.md, "The change log's port"): each committed entry
 * rewrites its leg's state item (`~feed#<id>`), whose stream record holds the record the log gave
 * before (old image) and gives now (new image), the entry's `changedAt` and the stream sequence
 * number it came from: a listing transition exactly as the change feed tells it.
 */
export const LOG_STATE_ID_PREFIX = STATE_PREFIX;

type Image = Record<string, AttributeValue>;

function shownOf(image: Readonly<Record<string, unknown>> | undefined): EmptyLeg | null {
  const packed = unpackRecord(image?.r);
  return packed === null ? null : toApiRecord(packed);
}

/**
 * The transition a state item's stream record tells; undefined for any other item, and for a state
 * removed (DynamoDB TTL deletes withdrawn states: no change of the listing).
 */
export function logTransitionOf(record: DynamoDBRecord): ListingTransition | undefined {
  const d = record.dynamodb;
  const key = d?.Keys?.id?.S;
  if (key === undefined || !key.startsWith(STATE_PREFIX) || d?.NewImage === undefined) return undefined;
  const after = unmarshall(d.NewImage as Image);
  if (typeof after.n !== 'string' || typeof after.t !== 'string') return undefined;
  const before = d.OldImage === undefined ? undefined : unmarshall(d.OldImage as Image);
  const shown = shownOf(after);
  const reason = shown === null ? { reason: (typeof after.w === 'string' ? CODE_REASON[after.w] : undefined) ?? 'unlisted' } : {};
  const factsOf = (image: Record<string, unknown> | undefined) => entryFacts(image?.[STATE_SOURCE_ATTR], image?.[STATE_CONFIRMED_ATTR], image?.[STATE_DEP_FROM_ATTR], image?.[STATE_DEP_TO_ATTR]);
  const legFacts = shown === null ? undefined : factsOfStored(after.p);
  return {
    id: key.slice(STATE_PREFIX.length),
    changedAt: after.t,
    changeId: after.n,
    before: shownOf(before),
    after: shown,
    ...transitionFacts(factsOf(before), factsOf(after)),
    ...(legFacts === undefined ? {} : { legFacts }),
    ...reason,
  };
}

import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../src/clock.js';
import { listedRecord } from '../../src/legs/get-leg.js';
import type { EmptyLeg } from '../../src/legs/model.js';
import type { LegTransition, TransitionSubscriber } from '../../src/watches/transitions.js';

/**
 * A small local adapter of the change log's port (docs/watches.md): until the table's stream feeds
 * the watches, it reads the legs table every `pollMs`, compares each leg as the unfiltered listing
 * shows it with the last read, and calls the subscriber with the transitions. The first read is the
 * baseline (no transitions). A subscriber that throws gets the same transitions again next time.
 */
export interface TransitionsPoller {
  stop(): Promise<void>;
}

export function startTransitionsPoller(o: {
  client: DynamoDBDocumentClient;
  legsTableName: string;
  subscriber: TransitionSubscriber;
  clock: Clock;
  pollMs?: number;
  /** Whether there is anything to feed (a watch was ever made): until then the table is not read. */
  active?: () => Promise<boolean>;
  say?: (line: string) => void;
}): TransitionsPoller {
  let shown: Map<string, { leg: EmptyLeg; json: string }> | undefined;
  let stopped = false;

  async function read(): Promise<Map<string, { leg: EmptyLeg; json: string }>> {
    const now = new Date(o.clock());
    const out = new Map<string, { leg: EmptyLeg; json: string }>();
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await o.client.send(new ScanCommand({ TableName: o.legsTableName, ExclusiveStartKey: startKey, ConsistentRead: true }));
      for (const item of page.Items ?? []) {
        if (typeof item.id !== 'string' || item.id.startsWith('~')) continue;
        const leg = listedRecord(item, now);
        if (leg !== undefined) out.set(leg.id, { leg, json: JSON.stringify(leg) });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return out;
  }

  async function once(): Promise<void> {
    if (o.active !== undefined && !(await o.active())) {
      shown = undefined;
      return;
    }
    const next = await read();
    if (shown === undefined) {
      shown = next;
      return;
    }
    const changedAt = new Date(o.clock()).toISOString();
    const transitions: LegTransition[] = [];
    for (const [id, now] of next) {
      const before = shown.get(id);
      if (before === undefined) transitions.push({ id, changedAt, before: null, after: now.leg });
      else if (before.json !== now.json) transitions.push({ id, changedAt, before: before.leg, after: now.leg });
    }
    for (const [id, before] of shown) if (!next.has(id)) transitions.push({ id, changedAt, before: before.leg, after: null });
    if (transitions.length > 0) await o.subscriber(transitions);
    shown = next;
  }

  const loop = (async () => {
    while (!stopped) {
      try {
        await once();
      } catch (err) {
        o.say?.(`watches: reading the legs' changes failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      await new Promise((r) => setTimeout(r, o.pollMs ?? 500));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

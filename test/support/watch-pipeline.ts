import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { expect } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { ensureTables } from '../../local/dynamodb-local.js';
import { createStreamPoller, type StreamPoller } from '../../local/stream-poller.js';
import { createStreamsClient } from '../../src/aws/dynamodb-streams.js';
import { atClockInstant, type Clock } from '../../src/clock.js';
import { AirportIndex } from '../../src/airports/reference.js';
import { createSourcesStore, staleSourcesAt } from '../../src/sources/index.js';
import { processDelivery, type DeliveryMessage } from '../../src/watches/delivery.js';
import { createActiveClients } from '../../src/watches/match/active-clients.js';
import { createMatchHandler } from '../../src/watches/match/handler.js';
import { createTransitionMatcher, type MatcherDependencies } from '../../src/watches/match/transitions.js';
import type { QueuedMessage } from '../../src/watches/queue.js';
import type { WatchTables } from '../../src/watches/store.js';
import { startChangeConsumer } from './change-consumer.js';
import { createTestTables, type TestTables } from './dynamodb.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

/** What a test gives the matcher beyond its tables, queue, clock and clients (the reads of its watches' options). */
export type MatcherReads = Omit<MatcherDependencies, 'tables' | 'queue' | 'airports' | 'clock' | 'activeClients'>;

export interface WatchPipeline {
  t: TestTables;
  tables: WatchTables;
  consumer: StreamPoller;
  matcher: StreamPoller;
  receiver: Receiver;
  /** The queued deliveries, each attempted once against the receiver (the delivery worker's code, at the clock), verified with `secret`. */
  deliverQueued<T>(secret: string, expected: number): Promise<T[]>;
  /** Stops the readers and the receiver, drops the tables. */
  stop(): Promise<void>;
}

/**
 * The watches end to end on DynamoDB Local and its stream, on an injected clock: the change consumer
 * (stale sources from the registry) and the watches' matcher read the stream as `npm start` runs
 * them, deliveries are queued in memory, and a real receiver on 127.0.0.1 gets the signed ones.
 */
export async function startWatchPipeline(clock: Clock, reads: (t: TestTables) => MatcherReads): Promise<WatchPipeline> {
  const t = await createTestTables();
  const suffix = randomUUID().slice(0, 8);
  const names = { watchesTableName: `watches-${suffix}`, deliveriesTableName: `deliveries-${suffix}`, localQueueTableName: `queue-${suffix}` };
  await ensureTables(t.client, { legsTableName: t.legsTableName, keysTableName: t.keysTableName, watches: names });
  const tables: WatchTables = { client: t.client, watchesTableName: names.watchesTableName, deliveriesTableName: names.deliveriesTableName };
  const receiver = await startReceiver();
  const queued: QueuedMessage[] = [];
  const failures: string[] = [];
  const sources = createSourcesStore(t.client, t.legsTableName);
  const activeClients = () => createActiveClients({ client: t.client, keysTableName: t.keysTableName, clock, intervalMs: 0 });
  const consumer = startChangeConsumer(t, clock, {
    staleSources: async (at) => staleSourcesAt(await sources.read(), at),
    onFailure: (_records, err) => failures.push(`consumer: ${(err as Error).stack}`),
  });
  const matcher = createStreamPoller({
    streams: createStreamsClient({ endpoint: t.endpoint }),
    client: t.client,
    tableName: t.legsTableName,
    idleMs: 50,
    onFailure: (_records, err) => failures.push(`matcher: ${(err as Error).stack}`),
    handle: createMatchHandler({
      match: createTransitionMatcher({
        ...reads(t),
        tables,
        queue: { send: (messages) => Promise.resolve(void queued.push(...messages)) },
        airports: () => new AirportIndex([]),
        clock,
        activeClients: activeClients(),
      }),
      clock,
      stage: 'sandbox',
      emit: () => undefined,
    }),
  });
  matcher.start();

  async function deliverQueued<T>(secret: string, expected: number): Promise<T[]> {
    // The stream shows a record a moment after its write: both readers are drained until the deliveries expected are queued (or 10 s).
    for (let waited = 0; ; waited += 100) {
      await consumer.drain();
      await matcher.drain();
      if (queued.length >= expected || waited >= 10_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(failures).toEqual([]);
    const messages = queued.splice(0).map((m) => JSON.parse(m.body) as DeliveryMessage);
    const before = receiver.received.length;
    for (const message of messages) {
      await processDelivery(message, {
        tables,
        queue: { send: () => Promise.resolve() },
        targets: 'local',
        resolver: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
        clock,
        retryScheduleSeconds: [5],
        disableAfterSeconds: 86_400,
        activeClients: activeClients(),
      });
    }
    return receiver.received.slice(before).map((r) => atClockInstant(clock, () => new Webhook(secret).verify(r.raw, r.headers)) as T);
  }

  return {
    t,
    tables,
    consumer,
    matcher,
    receiver,
    deliverQueued,
    async stop() {
      await Promise.all([consumer.stop(), matcher.stop(), receiver.close()]);
      for (const TableName of Object.values(names)) await t.client.send(new DeleteTableCommand({ TableName })).catch(() => undefined);
      await t.drop();
    },
  };
}

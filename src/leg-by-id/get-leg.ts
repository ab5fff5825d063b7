import { processClock, type Clock } from '../clock.js';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { withDeadline } from '../aws/deadline.js';
import { AppError, invalidParameter } from '../errors.js';
import { recordResponse } from '../http/envelope.js';
import { httpFunction, requireApiKey, traceIdOf, type HttpHandler } from '../http/middleware.js';
import { ROUTES } from '../routes.js';
import { invocationDeadlineMs } from '../time-budget.js';
import { ID_PATTERN } from '../loading/index.js';
import type { EmptyLeg } from '../kernel/model.js';
import { listedRecord } from '../listing/index.js';

/**
 * GET /open/v1/empty-legs/{id}: the leg if the unfiltered listing would list it now, else NOT_FOUND
 * with one message whatever the reason. One strongly consistent GetItem, no cache (docs/api.md).
 */

/** A leg id as the import format defines it (src/loading/import/reference-data.ts): 1-64 of A-Z a-z 0-9 _ -. */
export const LEG_ID_RULE = 'must be 1-64 of A-Z a-z 0-9 _ -';

/** The `{id}` path parameter, validated: a malformed id is INVALID_PARAMETER, never a read. */
export function parseLegId(raw: string | undefined): string {
  if (raw === undefined || !ID_PATTERN.test(raw)) throw invalidParameter('id', LEG_ID_RULE);
  return raw;
}

/** The one message of every NOT_FOUND of this route: the same for every reason. */
export const LEG_NOT_FOUND_MESSAGE = 'No empty leg with this id is listed';


/** Reads one stored item by id; undefined when there is none. */
export type LegReader = (id: string) => Promise<Record<string, unknown> | undefined>;

/** The use case: the leg if listed now, else NOT_FOUND (the same error for every reason). */
export async function getEmptyLeg(id: string, deps: { readLeg: LegReader; now: () => Date }): Promise<EmptyLeg> {
  const item = await deps.readLeg(id);
  const record = item === undefined ? undefined : listedRecord(item, deps.now());
  if (record === undefined) throw new AppError('NOT_FOUND', LEG_NOT_FOUND_MESSAGE);
  return record;
}

/** The legs table's reader: GetItem on the table by its key, strongly consistent. */
export function createLegReader(client: DynamoDBDocumentClient, tableName: string): LegReader {
  return async (id) => {
    const out = await client.send(new GetCommand({ TableName: tableName, Key: { id }, ConsistentRead: true }));
    return out.Item;
  };
}

export interface GetLegHandlerDependencies {
  readLeg: LegReader;
  /** The request's clock (default: the system clock). */
  clock?: Clock;
}

export function createGetLegHandler({ readLeg, clock = processClock }: GetLegHandlerDependencies): HttpHandler {
  return httpFunction({ gzip: true, conditional: true })
    .use(requireApiKey(ROUTES.getEmptyLeg.scope))
    .handler(async (event, context) => {
      const id = parseLegId(event.pathParameters?.id);
      const record = await withDeadline(invocationDeadlineMs('getEmptyLeg', context), () => getEmptyLeg(id, { readLeg, now: () => new Date(clock()) }));
      return recordResponse(record, traceIdOf({ context }));
    });
}

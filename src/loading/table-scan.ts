import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isLegItem, type StoredItem } from './sync-plan.js';

/**
 * Reads every leg item of the legs table (a sync's view of the table, an export): a parallel Scan,
 * strongly consistent by default so that a sync sees the writes of the load before it. Items that
 * are not legs (bookkeeping items whose id is outside the leg id format) are left out.
 */
export interface ScanLegsOptions {
  /** Parallel scan segments. Default 4. */
  segments?: number;
  /** Strongly consistent reads (twice the read units). Default true. */
  consistent?: boolean;
  /** Items per Scan request. Default 500: short requests (about 0.5 MB), well inside the client's request time-out. */
  pageSize?: number;
  /** Which leg items to keep (all by default). */
  keep?: (item: StoredItem) => boolean;
}

export async function scanLegItems(client: DynamoDBDocumentClient, tableName: string, options: ScanLegsOptions = {}): Promise<StoredItem[]> {
  const segments = Math.max(1, options.segments ?? 4);
  const keep = options.keep ?? (() => true);
  const parts = await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      const items: StoredItem[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const out = await client.send(
          new ScanCommand({
            TableName: tableName,
            ConsistentRead: options.consistent ?? true,
            Limit: options.pageSize ?? 500,
            ExclusiveStartKey,
            ...(segments > 1 ? { Segment: segment, TotalSegments: segments } : {}),
          }),
        );
        for (const item of out.Items ?? []) if (isLegItem(item) && keep(item)) items.push(item);
        ExclusiveStartKey = out.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return items;
    }),
  );
  return parts.flat();
}

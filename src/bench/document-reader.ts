import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keyCondition, type LegsRepository } from '../legs/repository.js';
import { BUCKET_ATTR, FILTER_ATTR, IndexEntryReader, SORT_ATTR, type IndexEntry } from '../legs/storage.js';
import { LEGS_INDEX } from '../tables.js';

/**
 * The bucket reader as it was before src/legs/wire-query.ts: through the document client, which
 * converts every attribute of every item into a JavaScript value first. Kept for the benchmark's
 * cold-cache CPU comparison only (both readers in the same run).
 */
export function withDocumentBucketReader(repo: LegsRepository, client: DynamoDBDocumentClient, tableName: string): LegsRepository {
  return {
    getLegs: (ids) => repo.getLegs(ids),
    async queryBucket(bucket, range) {
      const entries: IndexEntry[] = [];
      const reader = new IndexEntryReader();
      const condition = keyCondition(bucket, range);
      let startKey: Record<string, unknown> | undefined;
      do {
        const out = await client.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: LEGS_INDEX.indexName,
            KeyConditionExpression: condition.expression,
            ExpressionAttributeNames: { '#b': BUCKET_ATTR, '#s': SORT_ATTR, '#f': FILTER_ATTR },
            ExpressionAttributeValues: condition.values,
            ProjectionExpression: 'id, #s, #f',
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of out.Items ?? []) {
          const entry = reader.read(item);
          if (entry) entries.push(entry);
        }
        startKey = out.LastEvaluatedKey;
      } while (startKey);
      return entries;
    },
  };
}

import { QueryCommand, type AttributeValue, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LEGS_INDEX } from '../tables.js';
import { BUCKET_ATTR, FILTER_ATTR, IndexEntryReader, SORT_ATTR, type IndexEntry } from './storage.js';

/**
 * Reads one bucket of the listing index straight from DynamoDB's wire form (`{ S: ... }`), without
 * the document client's conversion of every attribute of every item into a JavaScript value: a
 * cold container reads about 17,500 entries at 20,000 legs, and that conversion was most of its
 * CPU (docs/performance.md). The command goes through the same client (and its middleware).
 */
export async function queryBucketWire(
  client: DynamoDBDocumentClient,
  tableName: string,
  /** The key condition (src/legs/repository.ts keyCondition), values as strings. */
  condition: { expression: string; values: Record<string, string> },
): Promise<IndexEntry[]> {
  const entries: IndexEntry[] = [];
  const reader = new IndexEntryReader();
  const values: Record<string, AttributeValue> = {};
  for (const [k, v] of Object.entries(condition.values)) values[k] = { S: v };
  const probe: { id: string; ls: string; lf: string } = { id: '', ls: '', lf: '' };
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const out: QueryCommandOutput = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: LEGS_INDEX.indexName,
        KeyConditionExpression: condition.expression,
        ExpressionAttributeNames: { '#b': BUCKET_ATTR, '#s': SORT_ATTR, '#f': FILTER_ATTR },
        ExpressionAttributeValues: values,
        ProjectionExpression: 'id, #s, #f',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const id = item.id?.S;
      const ls = item[SORT_ATTR]?.S;
      const lf = item[FILTER_ATTR]?.S;
      if (id === undefined || ls === undefined || lf === undefined) continue;
      probe.id = id;
      probe.ls = ls;
      probe.lf = lf;
      const entry = reader.read(probe);
      if (entry) entries.push(entry);
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return entries;
}

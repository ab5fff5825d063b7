import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Reads one stored item by id; undefined when there is none. */
export type LegReader = (id: string) => Promise<Record<string, unknown> | undefined>;

/** The legs table's reader: GetItem on the table by its key, strongly consistent. */
export function createLegReader(client: DynamoDBDocumentClient, tableName: string): LegReader {
  return async (id) => {
    const out = await client.send(new GetCommand({ TableName: tableName, Key: { id }, ConsistentRead: true }));
    return out.Item;
  };
}

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IndexRepair } from '../../kernel/leg-change.js';
import { BUCKET_ATTR, EXPIRY_DAY_ATTR, EXPIRY_INSTANT_ATTR, FILTER_ATTR, SORT_ATTR, TTL_ATTR } from '../../kernel/leg-item.js';
import { INSTANT_ATTRIBUTES } from '../../kernel/leg/instants.js';

/** The fields a leg's index attributes derive from (src/kernel/leg-change.ts, derivedIndexKeyOf). */
export const INDEXED_SOURCE_FIELDS = [
  'startDate', 'endDate', 'depCityName', 'depAirportIcao', 'depAirportIata', 'depCountryCode', 'arrCityName', 'arrAirportIcao', 'arrAirportIata', 'arrCountryCode',
  'seatNum', 'aircraftType', 'price', 'currency', 'depTimezone', 'listed', 'blocked', 'sold', 'source', TTL_ATTR,
  'registration', 'depTimeFrom', 'depTimeTo', ...INSTANT_ATTRIBUTES,
] as const;

/** Every attribute a repair names (its key, what it writes, what it checks): the consumer's IAM condition. */
export const REINDEX_ATTRIBUTES = ['id', BUCKET_ATTR, SORT_ATTR, FILTER_ATTR, EXPIRY_DAY_ATTR, EXPIRY_INSTANT_ATTR, ...INDEXED_SOURCE_FIELDS] as const;

/**
 * Writes a repair to the leg `id` if its item still has the fields of `image` the derivation read:
 * true when written, false when the item changed since (its own stream record brings it again).
 */
export async function reindexLeg(
  client: DynamoDBDocumentClient,
  tableName: string,
  id: string,
  image: Readonly<Record<string, unknown>>,
  repair: IndexRepair,
): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions = ['attribute_exists(id)'];
  INDEXED_SOURCE_FIELDS.forEach((field, i) => {
    names[`#f${i}`] = field;
    if (image[field] === undefined) conditions.push(`attribute_not_exists(#f${i})`);
    else {
      values[`:f${i}`] = image[field];
      conditions.push(`#f${i} = :f${i}`);
    }
  });
  const sets = Object.entries(repair.set).map(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = repair.remove.map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  const update = [sets.length > 0 ? `SET ${sets.join(', ')}` : '', removes.length > 0 ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' ');
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { id },
        UpdateExpression: update,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

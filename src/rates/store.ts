import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateSet } from './ecb-xml.js';

/**
 * The rates in force: one item `~rates` in the legs table, which the change consumer ignores (a
 * service item: src/changes/transition.ts), so no second streamed table (docs/rates.md, "Storage").
 */
export const RATES_ID = '~rates';

const CURRENCY = /^[A-Z]{3}$/;
const RATE = /^\d{1,12}(\.\d{1,12})?$/;

/** Port of the rates in force. */
export interface RatesStore {
  /** The rates in force; undefined when none were ever loaded (or the item is not a rates item). */
  read(): Promise<RateSet | undefined>;
  /**
   * Makes `set` the rates in force unless the rates in force are newer; in one conditional write.
   * Answers false (nothing written) when they are newer.
   */
  replace(set: RateSet, loadedAt: number): Promise<boolean>;
}

/** The rates of a stored item, or undefined when it is none. */
export function ratesOfItem(item: Readonly<Record<string, unknown>> | undefined): RateSet | undefined {
  if (item === undefined || typeof item.rateDate !== 'string' || typeof item.rates !== 'object' || item.rates === null) return undefined;
  const rates: Record<string, string> = {};
  for (const [code, rate] of Object.entries(item.rates as Record<string, unknown>)) {
    if (CURRENCY.test(code) && typeof rate === 'string' && RATE.test(rate) && Number(rate) > 0) rates[code] = rate;
  }
  return { date: item.rateDate, rates };
}

export function createRatesStore(client: DynamoDBDocumentClient, tableName: string): RatesStore {
  return {
    async read() {
      const out = await client.send(new GetCommand({ TableName: tableName, Key: { id: RATES_ID }, ConsistentRead: true }));
      return ratesOfItem(out.Item);
    },
    async replace(set, loadedAt) {
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { id: RATES_ID, rateDate: set.date, rates: set.rates, loadedAt },
            ConditionExpression: 'attribute_not_exists(id) OR rateDate <= :date',
            ExpressionAttributeValues: { ':date': set.date },
          }),
        );
        return true;
      } catch (err) {
        if (err instanceof ConditionalCheckFailedException) return false;
        throw err;
      }
    },
  };
}

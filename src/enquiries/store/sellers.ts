import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * A source's seller (docs/sources.md, "Sellers"): the client whose keys answer the enquiries on the
 * source's legs, and where each new enquiry is POSTed, signed with its secret. One service item per
 * source in the legs table (`~seller#<source>`: ignored by the change consumer), read by one GetItem;
 * the secret never leaves it but in the command's one printing.
 */
export interface Seller {
  source: string;
  clientId: string;
  enquiryUrl: string | null;
  secret: string | null;
  setAt: number;
}

export const SELLER_ITEM_PREFIX = '~seller#';
export const sellerItemId = (source: string) => `${SELLER_ITEM_PREFIX}${source}`;

export async function readSeller(client: DynamoDBDocumentClient, legsTableName: string, source: string): Promise<Seller | undefined> {
  const item = (await client.send(new GetCommand({ TableName: legsTableName, Key: { id: sellerItemId(source) }, ConsistentRead: true }))).Item;
  if (item === undefined || typeof item.clientId !== 'string') return undefined;
  return {
    source,
    clientId: item.clientId,
    enquiryUrl: typeof item.enquiryUrl === 'string' ? item.enquiryUrl : null,
    secret: typeof item.secret === 'string' ? item.secret : null,
    setAt: typeof item.setAt === 'number' ? item.setAt : 0,
  };
}

export async function writeSeller(client: DynamoDBDocumentClient, legsTableName: string, seller: Seller): Promise<void> {
  await client.send(new PutCommand({ TableName: legsTableName, Item: { id: sellerItemId(seller.source), ...seller } }));
}

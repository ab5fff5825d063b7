import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createKey } from '../../src/api-keys/store.js';
import { writeSeller } from '../../src/enquiries/index.js';
import { clientIdOf, environmentForStage } from '../../src/keys/format.js';
import type { Stage } from '../../src/config.js';

/** The demo's seller (docs/enquiries.md, "Trying it"): source `skyline`, answered by a client of its own. */
export const DEMO_SELLER_SOURCE = 'skyline';
export const SELLER_KEY_SCOPES = ['enquiry:answer'];

/** Makes the seller's key (printed once by npm start) and registers its client as the seller of DEMO_SELLER_SOURCE. */
export async function registerDemoSeller(client: DynamoDBDocumentClient, tables: { legsTableName: string; keysTableName: string }, stage: Stage, at: number): Promise<string> {
  const created = await createKey(client, tables.keysTableName, { environment: environmentForStage(stage), scopes: SELLER_KEY_SCOPES, name: `local demo seller (${DEMO_SELLER_SOURCE})`, now: at });
  await writeSeller(client, tables.legsTableName, { source: DEMO_SELLER_SOURCE, clientId: clientIdOf(created.record), enquiryUrl: null, secret: null, setAt: at });
  return created.key;
}

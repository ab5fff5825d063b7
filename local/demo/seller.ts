import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createKey } from '../../src/api-keys/store.js';
import { writeSeller } from '../../src/enquiries/index.js';
import { clientIdOf, environmentForStage } from '../../src/keys/format.js';
import type { Stage } from '../../src/config.js';
import { DEMO_REGISTRY } from './sources.js';

/** The demo's seller (docs/enquiries.md, "Trying it"): one client of its own sells the demo sources' legs. */
export const DEMO_SELLER_SOURCES = Object.keys(DEMO_REGISTRY);
export const SELLER_KEY_SCOPES = ['enquiry:answer'];

/** Makes the seller's key (printed once by npm start) and registers its client as the seller of the demo sources. */
export async function registerDemoSeller(client: DynamoDBDocumentClient, tables: { legsTableName: string; keysTableName: string }, stage: Stage, at: number): Promise<string> {
  const created = await createKey(client, tables.keysTableName, { environment: environmentForStage(stage), scopes: SELLER_KEY_SCOPES, name: 'local demo seller', now: at });
  for (const source of DEMO_SELLER_SOURCES) await writeSeller(client, tables.legsTableName, { source, clientId: clientIdOf(created.record), enquiryUrl: null, secret: null, setAt: at });
  return created.key;
}

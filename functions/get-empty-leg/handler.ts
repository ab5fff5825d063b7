import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createGetLegHandler, createLegReader } from '../../src/leg-by-id/get-leg.js';

/** GET /open/v1/empty-legs/{id} (src/routes.ts); the handler is built by src/leg-by-id/get-leg.ts. */
const config = functionConfig();
const client = createFunctionClient(config);
export const handler = createGetLegHandler({ readLeg: createLegReader(client, config.legsTableName), clock: config.clock });

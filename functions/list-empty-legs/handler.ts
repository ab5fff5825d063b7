import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createListHandler, createListRepository } from '../../src/listing/list-handler.js';

/** GET /open/v1/empty-legs (src/routes.ts); the handler is built by src/listing/list-handler.ts. */
const config = functionConfig();
const client = createFunctionClient(config);
export const handler = createListHandler({ repository: createListRepository(client, config), config, clock: config.clock });

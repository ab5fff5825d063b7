import { createFunctionClient } from '../../src/aws/function-clients.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { createLaneHandler } from '../../src/watches/lane/handler.js';

/** The webhook queue's consumer, the shared lane (src/routes.ts); built by src/watches/lane/handler.ts. */
const config = watchesFunctionConfig();
export const handler = createLaneHandler(config, createFunctionClient(config), 'shared');

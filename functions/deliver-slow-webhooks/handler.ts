import { createFunctionClient } from '../../src/aws/function-clients.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { createLaneHandler } from '../../src/watches/lane/handler.js';

/** The slow lane's queue consumer (docs/watches.md, "The slow lane"); built by src/watches/lane/handler.ts. */
const config = watchesFunctionConfig();
export const handler = createLaneHandler(config, createFunctionClient(config), 'slow');

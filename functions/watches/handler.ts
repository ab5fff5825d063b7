import { createFunctionClient } from '../../src/aws/function-clients.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { createWatchesHandler } from '../../src/watches/handlers.js';
import { watchPortsOf } from '../../src/watches/index.js';

/** The /open/v1/watches routes (src/routes.ts); the handlers are built by src/watches/handlers.ts. */
const config = watchesFunctionConfig();
export const handler = createWatchesHandler(watchPortsOf(config, createFunctionClient(config)));

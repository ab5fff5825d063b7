import { createFunctionClient } from '../../src/aws/function-clients.js';
import { watchesFunctionConfig } from '../../src/config.js';
import { createWatchAdminHandler } from '../../src/watch-admin/handlers.js';
import { watchPortsOf } from '../../src/watches/index.js';

/** The owner's operations on a watch (src/routes.ts); the handlers are built by src/watch-admin/handlers.ts. */
const config = watchesFunctionConfig();
export const handler = createWatchAdminHandler(watchPortsOf(config, createFunctionClient(config)));

import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createRetireHandler } from '../../src/retirement/handler.js';

/** The hourly schedule (src/routes.ts): retires the legs expired everywhere (src/retirement/retire-legs.ts). */
const config = functionConfig();
const client = createFunctionClient(config);
export const handler = createRetireHandler({ client, legsTableName: config.legsTableName, stage: config.stage, now: config.clock });

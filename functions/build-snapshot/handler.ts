import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig } from '../../src/config.js';
import { createBuildSnapshotHandler } from '../../src/snapshot/handler.js';

/** Every minute (src/routes.ts): builds the listing snapshot when one is due (src/snapshot/handler.ts). */
const config = functionConfig();
const client = createFunctionClient(config);
export const handler = createBuildSnapshotHandler({ client, legsTableName: config.legsTableName, stage: config.stage, now: config.clock });

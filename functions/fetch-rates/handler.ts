import { createFunctionClient } from '../../src/aws/function-clients.js';
import { functionConfig, ratesUrlSetting } from '../../src/config.js';
import { createFetchRatesHandler } from '../../src/rates/fetch-handler.js';

/** Working days after the ECB's publication (src/function-table.ts): the daily rates as the rates in force. */
const config = functionConfig();
const client = createFunctionClient(config);
const url = ratesUrlSetting();
export const handler = createFetchRatesHandler({ client, legsTableName: config.legsTableName, stage: config.stage, now: config.clock, url });

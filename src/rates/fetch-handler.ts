import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { processClock } from '../clock.js';
import { logger } from '../logger.js';
import { emfLine, RATES_METRICS, toStdout, type ScheduledRunDeps } from '../metrics.js';
import { fetchRates, type FetchRatesReport } from './fetch-rates.js';
import { createRatesStore } from './store.js';

export interface FetchRatesHandlerDeps extends ScheduledRunDeps<DynamoDBDocumentClient> {
  /** The daily file's address (RATES_URL). */
  url: string;
  timeoutMs?: number;
}

/**
 * The scheduled fetch's handler (working days after the ECB's publication): the daily file as the
 * rates in force. A failed fetch keeps them and is logged; every run emits the rates' age in days,
 * which the stack alarms on past 4 (docs/rates.md, "On AWS"). A failed write to the table throws.
 */
export function createFetchRatesHandler(deps: FetchRatesHandlerDeps): () => Promise<FetchRatesReport> {
  const now = deps.now ?? processClock;
  const emit = deps.emit ?? toStdout;
  const store = createRatesStore(deps.client, deps.legsTableName);
  return async () => {
    const report = await fetchRates({ url: deps.url, store, clock: now, ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }) });
    const m = RATES_METRICS;
    const values: Record<string, number> = { [m.loaded]: report.loaded ? 1 : 0 };
    if (report.ageDays !== undefined) values[m.ageDays] = report.ageDays;
    emit(emfLine(m.namespace, { [m.dimension]: deps.stage }, values, new Date(now())));
    if (report.loaded) logger.info('Loaded the reference rates', { report });
    else logger.error('The reference rates were not fetched: the rates in force are kept', { report, url: deps.url });
    return report;
  };
}

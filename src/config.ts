import { readConfig, type Config } from './settings/service.js';
import { readChangesConfig, readIngestConfig, readRatesUrl, type ChangesConfig, type IngestConfig } from './settings/functions.js';
import { readWatchesConfig, type WatchesConfig } from './settings/watches.js';
import { readEnquiriesConfig, type EnquiriesConfig } from './settings/enquiries.js';

/**
 * Settings (README, "Settings"), read from the environment once and validated: a missing or bad
 * setting throws a ConfigError that names it. The only module of src/ and functions/ that reads
 * `process.env` (eslint refuses it elsewhere); the rules of each group of settings are in src/settings/.
 */
export * from './settings/values.js';
export * from './settings/service.js';
export * from './settings/functions.js';
export * from './settings/watches.js';
export * from './settings/enquiries.js';

let loadedChanges: ChangesConfig | undefined;

/** The change feed function's configuration: read from process.env once. */
export function changesFunctionConfig(): ChangesConfig {
  loadedChanges ??= readChangesConfig(process.env);
  return loadedChanges;
}

let loadedWatches: WatchesConfig | undefined;

/** The watch functions' configuration: read from process.env once. */
export function watchesFunctionConfig(): WatchesConfig {
  loadedWatches ??= readWatchesConfig(process.env);
  return loadedWatches;
}

/** The rates fetch's address: read from process.env once. */
export function ratesUrlSetting(): string {
  return readRatesUrl(process.env);
}

let loadedEnquiries: EnquiriesConfig | undefined;

/** The enquiry functions' configuration: read from process.env once. */
export function enquiriesFunctionConfig(): EnquiriesConfig {
  loadedEnquiries ??= readEnquiriesConfig(process.env);
  return loadedEnquiries;
}

let loaded: Config | undefined;

/** The functions' configuration: read from process.env once, at first use (module scope). */
export function functionConfig(): Config {
  loaded ??= readConfig(process.env);
  return loaded;
}

/** The ingest function's configuration: read from process.env once, at module scope. */
export function ingestFunctionConfig(): IngestConfig {
  return readIngestConfig(process.env);
}

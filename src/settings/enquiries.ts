import { tableName, type Env } from './values.js';
import { readWatchesConfig, type WatchesConfig } from './watches.js';

/** The enquiries' settings (docs/enquiries.md, "Settings"): the watches' webhook settings, and the enquiries table. */
export interface EnquiriesConfig extends WatchesConfig {
  enquiriesTableName: string;
}

export function readEnquiriesConfig(env: Env, options: { defaultToLocal?: boolean } = {}): EnquiriesConfig {
  return { ...readWatchesConfig(env, options), enquiriesTableName: tableName(env, 'ENQUIRIES_TABLE_NAME', 'enquiries') };
}

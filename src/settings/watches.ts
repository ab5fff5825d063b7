import { ConfigError } from '../errors.js';
import { parseIntegerSetting, tableName, type Env } from './values.js';
import { readConfig, type Config } from './service.js';

/** Where a webhook may go (src/watches/target.ts): `public` on AWS, `local` under npm start only. */
export type WebhookTargets = 'public' | 'local';

/** The watches' settings (docs/watches.md, "Settings"). */
export interface WatchesConfig extends Config {
  watchesTableName: string;
  deliveriesTableName: string;
  /** The SQS queue between matching and delivery; undefined locally (the local queue stands in). */
  webhookQueueUrl: string | undefined;
  /** The slow lane's SQS queue (docs/watches.md, "The slow lane"); undefined locally (the local queue's slow lane stands in). */
  webhookSlowQueueUrl: string | undefined;
  /** The local queue's table (npm start, tests), when there is no WEBHOOK_QUEUE_URL. */
  localQueueTableName: string;
  webhookTargets: WebhookTargets;
  /** Delays before each retry, seconds: attempt n+1 waits the n-th (with jitter). */
  retryScheduleSeconds: readonly number[];
  /** An endpoint failing for this long (no 2xx) is disabled. */
  disableAfterSeconds: number;
}

/** The retry schedule of the AWS stages: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.6 h in all). */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** Five days failing: the endpoint is disabled. */
export const DEFAULT_DISABLE_AFTER_SECONDS = 5 * 86_400;

function retrySchedule(env: Env): readonly number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE?.trim();
  if (!raw) return DEFAULT_RETRY_SCHEDULE_SECONDS;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20 || parts.some((p) => !/^\d{1,6}$/.test(p) || Number(p) > 86_400)) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE', `'${raw}' must be 1-20 delays in whole seconds (0-86400) separated by commas`);
  }
  return parts.map(Number);
}

function sqsUrl(env: Env, name: 'WEBHOOK_QUEUE_URL' | 'WEBHOOK_SLOW_QUEUE_URL'): string | undefined {
  const url = env[name]?.trim() || undefined;
  if (url !== undefined && !/^https:\/\/\S+$/.test(url)) throw new ConfigError(name, `'${url}' is not an SQS queue URL`);
  return url;
}

export function readWatchesConfig(env: Env, options: { defaultToLocal?: boolean } = {}): WatchesConfig {
  const base = readConfig(env, options);
  const targets = env.WEBHOOK_TARGETS?.trim() || 'public';
  if (targets !== 'public' && targets !== 'local') throw new ConfigError('WEBHOOK_TARGETS', `'${targets}' must be public or local`);
  if (targets === 'local' && base.dynamodbEndpoint === undefined) {
    throw new ConfigError('WEBHOOK_TARGETS', 'local is for npm start only; the deployed stages call public https targets');
  }
  const queueUrl = sqsUrl(env, 'WEBHOOK_QUEUE_URL');
  return {
    ...base,
    watchesTableName: tableName(env, 'WATCHES_TABLE_NAME', 'watches'),
    deliveriesTableName: tableName(env, 'WATCH_DELIVERIES_TABLE_NAME', 'watch-deliveries'),
    webhookQueueUrl: queueUrl,
    webhookSlowQueueUrl: sqsUrl(env, 'WEBHOOK_SLOW_QUEUE_URL'),
    localQueueTableName: tableName(env, 'WEBHOOK_LOCAL_QUEUE_TABLE_NAME', 'webhook-queue'),
    webhookTargets: targets,
    retryScheduleSeconds: retrySchedule(env),
    disableAfterSeconds: parseIntegerSetting('WEBHOOK_DISABLE_AFTER_SECONDS', env.WEBHOOK_DISABLE_AFTER_SECONDS, DEFAULT_DISABLE_AFTER_SECONDS, 60, 30 * 86_400),
  };
}

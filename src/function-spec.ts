import type { TableAccess } from './table-access.js';

/**
 * Environment settings a function gets beyond the common ones and its tables' names: the stack
 * values them per stage (LISTING_CACHE_TTL_SECONDS) or from the resources it creates (the feeds
 * bucket's name).
 */
export type FunctionSetting = 'LISTING_CACHE_TTL_SECONDS' | 'FEEDS_BUCKET_NAME' | 'FAILED_AUTH_PER_MINUTE' | 'FAILED_AUTH_BURST' | 'WEBHOOK_QUEUE_URL' | 'WEBHOOK_SLOW_QUEUE_URL' | 'RATES_URL';

/** A file copied beside a function's bundle: `from` the repository root, `to` the bundle's folder. */
export interface BundledFile {
  readonly from: string;
  readonly to: string;
}

export interface FunctionSpec {
  /**
   * What invokes it: `api` (a route, the authorizer or `$default`), `feeds` (objects put in the feeds
   * bucket), `schedule` (an EventBridge rule every `scheduleMinutes`), `queue` (the webhook queue) or
   * `stream` (the legs table's stream); the CDK app (lib/) creates each kind's trigger and alarms.
   */
  readonly invokedBy: 'api' | 'feeds' | 'schedule' | 'queue' | 'stream';
  /** A `schedule` function's rate, in minutes (or `scheduleCron`). */
  readonly scheduleMinutes?: number;
  /** A `schedule` function's days and times instead (EventBridge cron fields, UTC). */
  readonly scheduleCron?: { readonly minute: string; readonly hour: string; readonly weekDay: string };
  /** The handler file, relative to the repository root (its folder names the function locally). */
  readonly entry: string;
  /** Stable CloudFormation logical id (sam local, events/env.json, docs/deploy.md use it). */
  readonly logicalId: string;
  readonly description: string;
  /** MB. */
  readonly memorySize: number;
  /** Lambda timeout, seconds; the local gateway enforces it too. */
  readonly timeoutSeconds: number;
  /** Table access, granted by the stack (and each table's name in the environment). */
  readonly access: readonly TableAccess[];
  /** Extra environment settings. */
  readonly environment: readonly FunctionSetting[];
  /** Files read at run time, copied beside the bundle (lib/bundling.ts), e.g. the airport reference. */
  readonly bundledFiles?: readonly BundledFile[];
  /**
   * Alarm names of an `api` function (docs/deploy.md, "Alarms"): `<alarm>Errors`, `<alarm>Throttles`
   * (the feeds construct names its function's alarms itself).
   */
  readonly alarm?: { readonly name: string; readonly errorsAlarmName?: string };
  /**
   * Reserved concurrency (docs/deploy.md, "Concurrency"), its figure per stage in lib/stage-config.ts:
   * `reserved`, a share no other function can take (the authorizer, the listing); `capped`, a ceiling
   * its load cannot pass (the owner's sends, the deliveries).
   */
  readonly concurrency?: 'reserved' | 'capped';
}

import type { ReadableStream } from 'node:stream/web';
import type { Clock } from '../clock.js';
import { daysBetween, utcDate } from '../kernel/dates.js';
import { parseEcbRates, RatesFileError, type RateSet } from './ecb-xml.js';
import { putRates, RatesFutureError, RatesOlderError } from './load-rates.js';
import type { RatesStore } from './store.js';

/** A fetch (DNS, connection, the whole body) taking longer fails. */
export const RATES_FETCH_TIMEOUT_MS = 10_000;
/** The daily file is about 1.6 kB; an answer larger than this fails. */
export const RATES_FETCH_MAX_BYTES = 256 * 1024;

export interface FetchRatesReport {
  /** True when the fetched rates are now in force. */
  loaded: boolean;
  /** Why not, in one line (a failed fetch, a malformed or older file). */
  error?: string;
  /** The date of the rates in force after the run; undefined when none. */
  inForce?: string;
  /** Whole days from the rates in force to today (UTC); undefined when none (the alarm's metric). */
  ageDays?: number;
}

/** Reads an address's body as text, refusing a redirect (never followed), a non-2xx answer, a body over `maxBytes` and a slow answer. */
export async function fetchText(url: string, options: { timeoutMs: number; maxBytes: number }): Promise<string> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const response = await fetch(url, { signal, redirect: 'manual', headers: { accept: 'application/xml, text/xml' } });
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    const location = response.headers.get('location');
    const redirect = response.status >= 300 && response.status < 400 ? `, a redirect${location ? ` to ${JSON.stringify(location.slice(0, 200))}` : ''}, not followed` : '';
    throw new Error(`the address answered HTTP ${response.status}${redirect}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const value of response.body as unknown as ReadableStream<Uint8Array>) {
    size += value.byteLength;
    if (size > options.maxBytes) throw new Error(`the answer is larger than ${options.maxBytes} bytes`);
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
}

function describe(err: unknown): string {
  if (err instanceof RatesFileError) return `the file is refused: ${err.message}`;
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'the address did not answer in time';
  if (err instanceof TypeError && err.message === 'fetch failed') return `the fetch failed (${String((err.cause as Error | undefined)?.message ?? 'network')})`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * The scheduled fetch: the file at `url` as the rates in force. A failed fetch, a redirect, a malformed,
 * future-dated or older file leaves the rates in force as they are and is reported; the store's own failures throw.
 */
export async function fetchRates(deps: {
  url: string;
  store: RatesStore;
  clock: Clock;
  timeoutMs?: number;
  maxBytes?: number;
}): Promise<FetchRatesReport> {
  let report: FetchRatesReport = { loaded: true };
  let set: RateSet | undefined;
  try {
    set = parseEcbRates(await fetchText(deps.url, { timeoutMs: deps.timeoutMs ?? RATES_FETCH_TIMEOUT_MS, maxBytes: deps.maxBytes ?? RATES_FETCH_MAX_BYTES }));
  } catch (err) {
    report = { loaded: false, error: describe(err) };
  }
  if (set !== undefined) {
    try {
      await putRates(set, deps);
    } catch (err) {
      if (!(err instanceof RatesOlderError || err instanceof RatesFutureError)) throw err;
      report = { loaded: false, error: err.message };
    }
  }
  const inForce = await deps.store.read();
  if (inForce === undefined) return report;
  return { ...report, inForce: inForce.date, ageDays: daysBetween(inForce.date, utcDate(new Date(deps.clock()))) };
}

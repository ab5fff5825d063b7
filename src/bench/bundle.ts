import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './stats.js';

/**
 * Bundles the functions exactly as the CDK stack does (lib/bundling.ts `esbuildOptions`), and
 * measures each bundle's size and its import time in a fresh `node` process, beside a one-line
 * hello-world bundle built with the same settings in the same run.
 *
 * Import time is the wall time of a fresh `node` process that imports the bundle and exits (what a
 * cold start adds on top of the runtime), median of `runs`; the time spent inside `import()` alone
 * is reported beside it.
 */
export interface BundleFigures {
  name: string;
  bytes: number;
  /** Median wall time of `node` importing the bundle, ms. */
  importMs: number;
  /** Median time inside `await import()`, ms. */
  inProcessImportMs: number;
  samples: number[];
}

export interface BundleReport {
  list: BundleFigures;
  authorizer: BundleFigures;
  hello: BundleFigures;
  /** What the list bundle holds, read from its text. */
  checks: {
    /** No `@aws-sdk/*` or `@smithy/*` import left outside the bundle (esbuild's metafile). */
    sdkBundled: boolean;
    minified: boolean;
    keepAlive: boolean;
    connectionTimeout: boolean;
    requestTimeout: boolean;
  };
}

interface Metafile {
  outputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
}
type Build = (options: object) => Promise<{ metafile?: Metafile }>;

export const HELLO_SOURCE = "export const handler = async () => ({ statusCode: 200, body: 'hello' });\n";

export async function buildAndMeasure(options: {
  dir: string;
  runs: number;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}): Promise<BundleReport> {
  const esbuild = (await import('esbuild')) as unknown as { build: Build };
  const bundling = await import('../../lib/bundling.js');
  const helloEntry = path.join(options.dir, 'hello.ts');
  writeFileSync(helloEntry, HELLO_SOURCE);
  const entries = {
    list: bundling.entryPath('listEmptyLegs'),
    authorizer: bundling.entryPath('authorizer'),
    hello: helloEntry,
  };
  const files: Record<keyof typeof entries, string> = { list: '', authorizer: '', hello: '' };
  const external: Record<keyof typeof entries, string[]> = { list: [], authorizer: [], hello: [] };
  for (const name of Object.keys(entries) as (keyof typeof entries)[]) {
    const opts = bundling.esbuildOptions(entries[name], path.join(options.dir, name));
    // The metafile only describes the output; the bundle is the stack's.
    const result = await esbuild.build({ ...opts, logLevel: 'error', metafile: true });
    files[name] = opts.outfile;
    for (const out of Object.values(result.metafile?.outputs ?? {})) {
      for (const imp of out.imports) if (imp.external) external[name].push(imp.path);
    }
  }
  options.log(`bundled: list ${statSync(files.list).size} B, authorizer ${statSync(files.authorizer).size} B`);

  type Timed = keyof typeof entries;
  const samples: Record<Timed, { wall: number[]; inside: number[] }> = {
    list: { wall: [], inside: [] },
    authorizer: { wall: [], inside: [] },
    hello: { wall: [], inside: [] },
  };
  const paths: Record<Timed, string> = files;
  const order: Timed[] = ['list', 'authorizer', 'hello'];
  const code =
    'const t = performance.now(); await import(process.env.BENCH_IMPORT_URL); process.stdout.write(String(performance.now() - t));';
  for (let i = 0; i < options.runs + 1; i++) {
    // Rotate the order so that no bundle always runs first; the first round only warms the disk cache.
    for (let j = 0; j < order.length; j++) {
      const name = order[(i + j) % order.length]!;
      const started = performance.now();
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
        env: { ...options.env, BENCH_IMPORT_URL: pathToFileURL(paths[name]).href },
        encoding: 'utf8',
      });
      const wall = performance.now() - started;
      if (r.status !== 0) throw new Error(`importing the ${name} bundle failed: ${(r.stderr || '').trim().slice(0, 500)}`);
      if (i === 0) continue;
      samples[name].wall.push(wall);
      samples[name].inside.push(Number(r.stdout));
    }
  }
  const figures = (name: keyof typeof entries): BundleFigures => ({
    name,
    bytes: statSync(files[name]).size,
    importMs: median(samples[name].wall),
    inProcessImportMs: median(samples[name].inside),
    samples: samples[name].wall.map((n) => Number(n.toFixed(2))),
  });
  const text = readFileSync(files.list, 'utf8');
  return {
    list: figures('list'),
    authorizer: figures('authorizer'),
    hello: figures('hello'),
    checks: {
      sdkBundled: !external.list.some((p) => p.startsWith('@aws-sdk/') || p.startsWith('@smithy/')),
      minified: text.split('\n').length < 200 && !/\n\s{4}\w/.test(text.slice(0, 100_000)),
      keepAlive: /keepAlive:!0/.test(text),
      connectionTimeout: /connectionTimeout:[0-9][0-9.e]*[,}]/.test(text),
      requestTimeout: /requestTimeout:[0-9][0-9.e]*[,}]/.test(text),
    },
  };
}

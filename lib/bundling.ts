import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { Runtime, Architecture } from 'aws-cdk-lib/aws-lambda';
import { OutputFormat, SourceMapMode, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { copyFileSync, mkdirSync } from 'node:fs';
import { FUNCTIONS, type BundledFile, type FunctionName, type FunctionSpec } from '../src/function-table.js';

/**
 * The one place that says how a function is bundled. The stack (`BUNDLING` for NodejsFunction) and
 * the benchmark (`esbuildOptions()` for esbuild's JavaScript API) both derive from `SETTINGS`, so
 * the size the benchmark reports is the size of what the stack deploys.
 *
 * - ESM output (`index.mjs`): @middy/* is ESM-only, and ESM lets esbuild tree-shake the SDK.
 * - The banner gives CommonJS dependencies bundled into an ES module a working `require`.
 * - Nothing is external: the AWS SDK v3 is bundled, so the function runs the SDK version that was
 *   tested, not whatever the runtime ships, and the bundle is self-contained.
 * - The SDK's default credential chain is replaced by the environment-variable provider
 *   (src/aws/lambda-credentials.ts): Lambda always supplies credentials that way, and the rest of
 *   the chain is about a third of the bundle.
 * - Minified, with a linked source map without sources (NODE_OPTIONS=--enable-source-maps turns
 *   stack traces back into TypeScript lines).
 */
/** The repository root (where package.json and package-lock.json are). */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');

export const RUNTIME = Runtime.NODEJS_22_X;
export const ARCHITECTURE = Architecture.ARM_64;

export const ESM_REQUIRE_BANNER =
  "import { createRequire as __elCreateRequire } from 'node:module'; const require = __elCreateRequire(import.meta.url);";

export const SETTINGS = {
  /** esbuild target matching RUNTIME. */
  target: 'node22',
  format: 'esm',
  minify: true,
  /** Linked source map: `index.mjs.map` beside the bundle, referenced by a comment. */
  sourcemap: true,
  sourcesContent: false,
  /** Prefer packages' ES module builds (better tree-shaking of the AWS SDK). */
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  /** Modules left out of the bundle: none. */
  external: [] as readonly string[],
  /** Module replacements (absolute paths). */
  alias: {
    '@aws-sdk/credential-provider-node': 'src/aws/lambda-credentials.ts',
  },
} as const;

function aliases(): Record<string, string> {
  return Object.fromEntries(Object.entries(SETTINGS.alias).map(([from, to]) => [from, path.join(PROJECT_ROOT, to)]));
}

/** The file name NodejsFunction gives an ESM bundle; the function handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';

/** NodejsFunction bundling options (local esbuild; never Docker). */
export const BUNDLING: BundlingOptions = {
  target: SETTINGS.target,
  format: OutputFormat.ESM,
  minify: SETTINGS.minify,
  sourceMap: SETTINGS.sourcemap,
  sourceMapMode: SourceMapMode.DEFAULT,
  sourcesContent: SETTINGS.sourcesContent,
  mainFields: [...SETTINGS.mainFields],
  banner: SETTINGS.banner,
  externalModules: [...SETTINGS.external],
  esbuildArgs: Object.fromEntries(Object.entries(aliases()).map(([from, to]) => [`--alias:${from}`, to])),
  bundleAwsSDK: true,
  forceDockerBundling: false,
};

/**
 * esbuild `BuildOptions` equivalent to what NodejsFunction runs with `BUNDLING`
 * (`esbuild --bundle ENTRY --target=node22 --platform=node --format=esm --outfile=OUTDIR/index.mjs
 * --minify --sourcemap --sources-content=false --banner:js=... --main-fields=module,main`).
 */
export function esbuildOptions(entry: string, outdir: string): BuildOptions & { outfile: string } {
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: SETTINGS.target,
    format: SETTINGS.format,
    outfile: path.join(outdir, BUNDLE_FILE),
    minify: SETTINGS.minify,
    sourcemap: SETTINGS.sourcemap,
    sourcesContent: SETTINGS.sourcesContent,
    mainFields: [...SETTINGS.mainFields],
    banner: { js: SETTINGS.banner },
    external: [...SETTINGS.external],
    alias: aliases(),
    logLevel: 'warning',
  };
}

/** The files a function reads at run time beside its bundle (src/routes.ts `bundledFiles`). */
export function bundledFiles(name: FunctionName): readonly BundledFile[] {
  const spec: FunctionSpec = FUNCTIONS[name];
  return spec.bundledFiles ?? [];
}

/**
 * NodejsFunction bundling options of one function: `BUNDLING`, and its bundled files copied into
 * the asset after esbuild (local bundling: the commands run on this machine, in the project root).
 */
export function bundlingFor(name: FunctionName): BundlingOptions {
  const files = bundledFiles(name);
  if (files.length === 0) return BUNDLING;
  return {
    ...BUNDLING,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) =>
        files.map((f) => `mkdir -p "${path.posix.join(outputDir, path.posix.dirname(f.to))}" && cp "${path.posix.join(inputDir, f.from)}" "${path.posix.join(outputDir, f.to)}"`),
    },
  };
}

/** Copies a function's bundled files into `outdir` (what `bundlingFor`'s hook does for the stack). */
export function copyBundledFiles(name: FunctionName, outdir: string): void {
  for (const f of bundledFiles(name)) {
    mkdirSync(path.join(outdir, path.dirname(f.to)), { recursive: true });
    copyFileSync(path.join(PROJECT_ROOT, f.from), path.join(outdir, f.to));
  }
}

/** Absolute path of a function's entry file (src/routes.ts FUNCTIONS). */
export function entryPath(name: FunctionName): string {
  return path.join(PROJECT_ROOT, FUNCTIONS[name].entry);
}

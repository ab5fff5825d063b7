/**
 * The service in one table: its functions and the routes that reach them. Everything that needs to
 * know a function or a route reads it from here:
 * - the CDK stack (lib/empty-legs-stack.ts, lib/constructs/http-api.ts): one Lambda function per
 *   entry of FUNCTIONS with its settings and, from `access`, its least-privilege table grants; one
 *   HTTP API route per entry of ROUTES, behind the key authorizer when `authorizer` is true; the
 *   `$default` route to DEFAULT_ROUTE's function;
 * - the bundling (lib/bundling.ts) and the benchmark's bundle measurements: the entry files;
 * - the local server (local/service.ts, local/gateway.ts): the same routes, path parameters included,
 *   each function imported from its entry file and run under its Lambda timeout;
 * - the functions: the scope a route requires;
 * - a test (test/unit/contract.test.ts): the routes, methods and scopes equal docs/openapi.yaml's.
 *
 * Adding an endpoint: one entry in ROUTES (and one in FUNCTIONS for a new function), its handler
 * file in functions/<name>/handler.ts, its use case in src/, and its description in docs/openapi.yaml.
 */

/** What a function may do to a table; the stack turns each into the narrowest IAM statements. */
export type TableAccess =
  /** Legs table: Query on the listing index, GetItem and BatchGetItem on the table. */
  | 'legs:read'
  /** Keys table: GetItem on the table (a key is read by its hash). */
  | 'keys:read';

/** Environment settings a function gets beyond the common ones, valued per stage by the stack. */
export type StageSetting = 'LISTING_CACHE_TTL_SECONDS';

export interface FunctionSpec {
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
  readonly environment: readonly StageSetting[];
  /** Alarm names of the function (docs/deploy.md, "Alarms"): `<alarm>Errors`, `<alarm>Throttles`. */
  readonly alarm: { readonly name: string; readonly errorsAlarmName?: string };
}

export const FUNCTIONS = {
  listEmptyLegs: {
    entry: 'functions/list-empty-legs/handler.ts',
    logicalId: 'ListEmptyLegsFunction',
    description: 'GET /open/v1/empty-legs: lists empty legs',
    memorySize: 1024,
    timeoutSeconds: 10,
    access: ['legs:read'],
    environment: ['LISTING_CACHE_TTL_SECONDS'],
    alarm: { name: 'ListFunction' },
  },
  authorizer: {
    entry: 'functions/authorizer/handler.ts',
    logicalId: 'AuthorizerFunction',
    description: 'HTTP API Lambda authorizer: resolves X-API-Key into a verdict',
    memorySize: 512,
    timeoutSeconds: 5,
    access: ['keys:read'],
    environment: [],
    alarm: { name: 'AuthorizerFunction', errorsAlarmName: 'AuthorizerErrors' },
  },
  notFound: {
    entry: 'functions/not-found/handler.ts',
    logicalId: 'NotFoundFunction',
    description: '$default route: answers NOT_FOUND in the envelope',
    memorySize: 256,
    timeoutSeconds: 5,
    access: [],
    environment: [],
    alarm: { name: 'NotFoundFunction' },
  },
  openApi: {
    entry: 'functions/openapi/handler.ts',
    logicalId: 'OpenApiFunction',
    description: 'GET /open/v1/openapi.json: the OpenAPI document, no key',
    memorySize: 256,
    timeoutSeconds: 5,
    access: [],
    environment: [],
    alarm: { name: 'OpenApiFunction' },
  },
} as const satisfies Readonly<Record<string, FunctionSpec>>;

export type FunctionName = keyof typeof FUNCTIONS;

interface RouteBase {
  readonly method: 'GET';
  /** API Gateway path template: `{name}` is a path parameter (one whole segment). */
  readonly path: string;
  readonly function: FunctionName;
}

/** A route behind the key authorizer: the function refuses a key without `scope`. */
export interface KeyedRoute extends RouteBase {
  readonly authorizer: true;
  readonly scope: string;
}

/** A route served without a key: no authorizer runs; `publicReason` says why that is safe. */
export interface PublicRoute extends RouteBase {
  readonly authorizer: false;
  readonly scope: null;
  readonly publicReason: string;
}

export type RouteSpec = KeyedRoute | PublicRoute;

/** The routes; the key (capitalized) names their CDK constructs (`<Key>Route`, `<Key>Integration`). */
export const ROUTES = {
  listEmptyLegs: {
    method: 'GET',
    path: '/open/v1/empty-legs',
    scope: 'empty_leg:read',
    function: 'listEmptyLegs',
    authorizer: true,
  },
  openApiDocument: {
    method: 'GET',
    path: '/open/v1/openapi.json',
    scope: null,
    function: 'openApi',
    authorizer: false,
    publicReason:
      'GET /open/v1/openapi.json serves the public API contract (the OpenAPI document), no data: integrators read it before they have a key, so it needs none.',
  },
} as const satisfies Readonly<Record<string, RouteSpec>>;

export type RouteName = keyof typeof ROUTES;

/** The key authorizer of the routes with `authorizer: true`. */
export const AUTHORIZER_FUNCTION = 'authorizer' satisfies FunctionName;

/** Any other method or path: NOT_FOUND in the envelope, no authorizer. */
export const DEFAULT_ROUTE = {
  function: 'notFound',
  publicReason:
    'The $default route serves no data: it only answers NOT_FOUND in the envelope for unknown paths and methods, so it needs no API key.',
} as const satisfies { function: FunctionName; publicReason: string };

/** API Gateway's route key of a route: `GET /open/v1/empty-legs/{id}`. */
export function routeKeyOf(route: Pick<RouteSpec, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

/** The function's name outside AWS (local server, logs): its folder, e.g. `list-empty-legs`. */
export function localFunctionName(name: FunctionName): string {
  return FUNCTIONS[name].entry.split('/').at(-2) ?? name;
}

/** `listEmptyLegs` -> `ListEmptyLegs`: construct ids derived from table keys. */
export function constructIdOf(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export const FUNCTION_NAMES = Object.keys(FUNCTIONS) as FunctionName[];
export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

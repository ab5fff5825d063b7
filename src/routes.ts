import type { FunctionName } from './function-table.js';

/**
 * The HTTP API's routes and the function each reaches: the stack, the local server, the functions
 * (a route's scope) and the OpenAPI check read them from here (CONTRIBUTING.md, "Where things are").
 */

interface RouteBase {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway path template: `{name}` is a path parameter (one whole segment). */
  readonly path: string;
  readonly function: FunctionName;
}

/** A route behind the key authorizer: the function refuses a key without `scope` (null: any verified key). */
export interface KeyedRoute extends RouteBase {
  readonly authorizer: true;
  readonly scope: string | null;
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
  listChanges: {
    method: 'GET',
    path: '/open/v1/empty-legs/changes',
    scope: 'empty_leg:read',
    function: 'listChanges',
    authorizer: true,
  },
  getEmptyLeg: {
    method: 'GET',
    path: '/open/v1/empty-legs/{id}',
    scope: 'empty_leg:read',
    function: 'getEmptyLeg',
    authorizer: true,
  },
  listSources: {
    method: 'GET',
    path: '/open/v1/sources',
    scope: 'empty_leg:read',
    function: 'listSources',
    authorizer: true,
  },
  postEnquiry: {
    method: 'POST',
    path: '/open/v1/empty-legs/{id}/enquiries',
    scope: 'enquiry:write',
    function: 'enquiries',
    authorizer: true,
  },
  // A broker's (enquiry:write) or a seller's (enquiry:answer, role=seller) list: the function asks the role's scope.
  listEnquiries: {
    method: 'GET',
    path: '/open/v1/enquiries',
    scope: null,
    function: 'enquiries',
    authorizer: true,
  },
  // Its broker's (enquiry:write) or its seller's (enquiry:answer); NOT_FOUND to any other key.
  getEnquiry: {
    method: 'GET',
    path: '/open/v1/enquiries/{id}',
    scope: null,
    function: 'enquiries',
    authorizer: true,
  },
  withdrawEnquiry: {
    method: 'POST',
    path: '/open/v1/enquiries/{id}/withdraw',
    scope: 'enquiry:write',
    function: 'enquiries',
    authorizer: true,
  },
  answerEnquiry: {
    method: 'POST',
    path: '/open/v1/enquiries/{id}/answer',
    scope: 'enquiry:answer',
    function: 'enquiries',
    authorizer: true,
  },
  createWatch: {
    method: 'POST',
    path: '/open/v1/watches',
    scope: 'watch:write',
    function: 'watches',
    authorizer: true,
  },
  listWatches: {
    method: 'GET',
    path: '/open/v1/watches',
    scope: 'watch:read',
    function: 'watches',
    authorizer: true,
  },
  getWatch: {
    method: 'GET',
    path: '/open/v1/watches/{id}',
    scope: 'watch:read',
    function: 'watches',
    authorizer: true,
  },
  deleteWatch: {
    method: 'DELETE',
    path: '/open/v1/watches/{id}',
    scope: 'watch:write',
    function: 'watches',
    authorizer: true,
  },
  listWatchDeliveries: {
    method: 'GET',
    path: '/open/v1/watches/{id}/deliveries',
    scope: 'watch:read',
    function: 'watches',
    authorizer: true,
  },
  updateWatch: {
    method: 'PATCH',
    path: '/open/v1/watches/{id}',
    scope: 'watch:write',
    function: 'watchAdmin',
    authorizer: true,
  },
  testWatch: {
    method: 'POST',
    path: '/open/v1/watches/{id}/test',
    scope: 'watch:write',
    function: 'watchAdmin',
    authorizer: true,
  },
  retryWatchDelivery: {
    method: 'POST',
    path: '/open/v1/watches/{id}/deliveries/{deliveryId}/retry',
    scope: 'watch:write',
    function: 'watchAdmin',
    authorizer: true,
  },
  rotateWatchSecret: {
    method: 'POST',
    path: '/open/v1/watches/{id}/secret/rotate',
    scope: 'watch:write',
    function: 'watchAdmin',
    authorizer: true,
  },
  readOwnApiKey: {
    method: 'GET',
    path: '/open/v1/api-keys/self',
    scope: null,
    function: 'apiKeys',
    authorizer: true,
  },
  listApiKeys: {
    method: 'GET',
    path: '/open/v1/api-keys',
    scope: 'api_key:read',
    function: 'apiKeys',
    authorizer: true,
  },
  createApiKey: {
    method: 'POST',
    path: '/open/v1/api-keys',
    scope: 'api_key:write',
    function: 'apiKeys',
    authorizer: true,
  },
  rotateApiKey: {
    method: 'POST',
    path: '/open/v1/api-keys/{id}/rotate',
    scope: 'api_key:write',
    function: 'apiKeys',
    authorizer: true,
  },
  revokeApiKey: {
    method: 'DELETE',
    path: '/open/v1/api-keys/{id}',
    scope: 'api_key:write',
    function: 'apiKeys',
    authorizer: true,
  },
  mcp: {
    method: 'POST',
    path: '/open/v1/mcp',
    // Any verified key: each tool asks its own route's scopes (src/mcp/tools.ts).
    scope: null,
    function: 'mcp',
    authorizer: true,
  },
  // Streamable HTTP's stream and session requests: 405, the server is stateless (docs/api.md, "MCP").
  mcpStream: {
    method: 'GET',
    path: '/open/v1/mcp',
    scope: null,
    function: 'mcp',
    authorizer: true,
  },
  mcpSession: {
    method: 'DELETE',
    path: '/open/v1/mcp',
    scope: null,
    function: 'mcp',
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

export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

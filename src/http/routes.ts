/**
 * The routes the API serves: method, path and the scope a key needs (`null`: no key). The local
 * server (local/service.ts) and the CDK stack (lib/constructs/http-api.ts) both take their
 * routes from here, and a test checks them against docs/openapi.yaml.
 */
export interface RouteSpec {
  readonly method: 'GET';
  readonly path: string;
  /** The scope a key needs, or null for a route served without a key. */
  readonly scope: string | null;
}

export const ROUTES = {
  listEmptyLegs: { method: 'GET', path: '/open/v1/empty-legs', scope: 'empty_leg:read' },
  openApiDocument: { method: 'GET', path: '/open/v1/openapi.json', scope: null },
} as const satisfies Readonly<Record<string, RouteSpec>>;

export type RouteName = keyof typeof ROUTES;

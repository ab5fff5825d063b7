import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { API_FUNCTION_NAMES, FUNCTION_NAMES, FUNCTIONS, localFunctionName, type FunctionSpec } from '../../src/function-table.js';
import { AUTHORIZER_FUNCTION, DEFAULT_ROUTE, ROUTES, routeKeyOf } from '../../src/routes.js';

/** The table of src/routes.ts is consistent: what the stack and the local server build from it exists. */
describe('src/routes.ts', () => {
  it('every function has an entry file in functions/<name>/handler.ts that exists', () => {
    for (const name of FUNCTION_NAMES) {
      expect(FUNCTIONS[name].entry).toMatch(/^functions\/[a-z0-9-]+\/handler\.ts$/);
      expect(existsSync(FUNCTIONS[name].entry)).toBe(true);
    }
  });

  it('logical ids, entry files, local names and route keys are unique', () => {
    const unique = (xs: string[]) => expect(new Set(xs).size).toBe(xs.length);
    unique(FUNCTION_NAMES.map((n) => FUNCTIONS[n].logicalId));
    unique(FUNCTION_NAMES.map((n) => FUNCTIONS[n].entry));
    unique(FUNCTION_NAMES.map(localFunctionName));
    unique(Object.values(ROUTES).map(routeKeyOf));
  });

  it('a route with a scope runs the authorizer; a route without one explains why it needs no key', () => {
    for (const route of Object.values(ROUTES)) {
      if (route.scope !== null) expect(route.authorizer).toBe(true);
      if (!route.authorizer) expect(route.publicReason.length).toBeGreaterThan(40);
    }
  });

  it('a keyed route without a scope takes any verified key: GET /open/v1/api-keys/self, /open/v1/mcp (each tool asks its scopes) and the enquiries read by a broker or a seller (each asks its role\'s scope) only', () => {
    const anyKey = Object.values(ROUTES).filter((r) => r.authorizer && r.scope === null);
    expect(anyKey.map(routeKeyOf)).toEqual(['GET /open/v1/enquiries', 'GET /open/v1/enquiries/{id}', 'GET /open/v1/api-keys/self', 'POST /open/v1/mcp', 'GET /open/v1/mcp', 'DELETE /open/v1/mcp']);
  });

  it('paths are API Gateway path templates: absolute, no trailing slash, `{name}` parameters as whole segments', () => {
    for (const route of Object.values(ROUTES)) {
      expect(route.path).toMatch(/^(\/([A-Za-z0-9._-]+|\{[A-Za-z0-9_]+\}))+$/);
    }
  });

  it('routes go to functions other than the authorizer and the $default function', () => {
    for (const route of Object.values(ROUTES)) {
      expect(route.function).not.toBe(AUTHORIZER_FUNCTION);
      expect(route.function).not.toBe(DEFAULT_ROUTE.function);
    }
  });

  it('the API invokes only its functions: routes, the authorizer and $default go to `api` functions, with alarms and timeouts below the HTTP API integration timeout (30 s)', () => {
    const invoked = new Set([...Object.values(ROUTES).map((r) => r.function), AUTHORIZER_FUNCTION, DEFAULT_ROUTE.function]);
    expect([...invoked].sort()).toEqual(API_FUNCTION_NAMES.slice().sort());
    for (const name of API_FUNCTION_NAMES) {
      const spec: FunctionSpec = FUNCTIONS[name];
      expect(spec.timeoutSeconds).toBeLessThan(30);
      expect(spec.alarm?.name).toMatch(/^[A-Z][A-Za-z]+$/);
    }
  });
});

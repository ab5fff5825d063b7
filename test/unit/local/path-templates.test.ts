import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { findRoute, matchPathTemplate, type HttpHandler, type Route } from '../../../local/gateway.js';

/**
 * The local gateway's route matching: API Gateway path templates, where `{name}` is one whole,
 * non-empty path segment and the event's `pathParameters` carry the decoded values.
 */
const noop: HttpHandler = () => Promise.resolve({ statusCode: 200 });
const route = (method: string, path: string): Route => ({ method, path, handler: noop });

describe('matchPathTemplate', () => {
  it('matches a literal path exactly, with no parameters', () => {
    expect(matchPathTemplate('/open/v1/empty-legs', '/open/v1/empty-legs')).toEqual({});
    expect(matchPathTemplate('/open/v1/empty-legs', '/open/v1/empty-legs/')).toBeUndefined();
    expect(matchPathTemplate('/open/v1/empty-legs', '/open/v1/empty-leg')).toBeUndefined();
    expect(matchPathTemplate('/open/v1/empty-legs', '/open/v1/EMPTY-LEGS')).toBeUndefined();
  });

  it('fills a parameter from its segment, decoded', () => {
    expect(matchPathTemplate('/open/v1/empty-legs/{id}', '/open/v1/empty-legs/leg-42')).toEqual({ id: 'leg-42' });
    expect(matchPathTemplate('/open/v1/empty-legs/{id}', '/open/v1/empty-legs/a%20b%C3%A9')).toEqual({ id: 'a bé' });
    // A malformed escape stays as it is.
    expect(matchPathTemplate('/open/v1/empty-legs/{id}', '/open/v1/empty-legs/50%')).toEqual({ id: '50%' });
  });

  it('fills several parameters', () => {
    expect(matchPathTemplate('/a/{from}/to/{to}', '/a/EGLF/to/LFMN')).toEqual({ from: 'EGLF', to: 'LFMN' });
    expect(matchPathTemplate('/a/{from}/to/{to}', '/a/EGLF/from/LFMN')).toBeUndefined();
  });

  it('a parameter is one whole, non-empty segment', () => {
    expect(matchPathTemplate('/open/v1/empty-legs/{id}', '/open/v1/empty-legs/')).toBeUndefined();
    expect(matchPathTemplate('/open/v1/empty-legs/{id}', '/open/v1/empty-legs')).toBeUndefined();
    expect(matchPathTemplate('/open/v1/empty-legs/{id}', '/open/v1/empty-legs/a/b')).toBeUndefined();
  });

  it('fills any segment value back as it was encoded', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (value) => {
        const path = `/open/v1/empty-legs/${encodeURIComponent(value)}`;
        expect(matchPathTemplate('/open/v1/empty-legs/{id}', path)).toEqual({ id: value });
      }),
      { numRuns: 300 },
    );
  });
});

describe('findRoute', () => {
  const routes = [
    route('GET', '/open/v1/empty-legs'),
    route('GET', '/open/v1/empty-legs/{id}'),
    route('GET', '/open/v1/openapi.json'),
  ];

  it('picks the route by method and path template, with its parameters', () => {
    expect(findRoute(routes, 'GET', '/open/v1/empty-legs')).toEqual({ route: routes[0], pathParameters: {} });
    expect(findRoute(routes, 'GET', '/open/v1/empty-legs/leg-1')).toEqual({ route: routes[1], pathParameters: { id: 'leg-1' } });
    expect(findRoute(routes, 'GET', '/open/v1/openapi.json')).toEqual({ route: routes[2], pathParameters: {} });
  });

  it('finds nothing for another method or an unknown path ($default)', () => {
    expect(findRoute(routes, 'POST', '/open/v1/empty-legs/leg-1')).toBeUndefined();
    expect(findRoute(routes, 'GET', '/open/v1/empty-legs/leg-1/x')).toBeUndefined();
    expect(findRoute(routes, 'GET', '/')).toBeUndefined();
  });
});

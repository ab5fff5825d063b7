import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../../../src/errors.js';
import { KNOWN_SCOPES, parseScopes, unknownScopes } from '../../../src/api-keys/scopes.js';

describe('parseScopes', () => {
  it('reads one scope', () => {
    expect(parseScopes('empty_leg:read')).toEqual(['empty_leg:read']);
  });

  it('reads a list, trims, drops empty items and duplicates, sorts', () => {
    expect(parseScopes(' empty_leg:read , booking:write,,empty_leg:read ')).toEqual(['booking:write', 'empty_leg:read']);
  });

  it.each(['', ' , ', 'empty_leg', 'Empty_Leg:read', 'empty-leg:read', 'empty_leg:read:all', ':read', 'a:', '1a:read', 'empty leg:read'])(
    'refuses %j with a ConfigError naming --scopes',
    (text) => {
      expect(() => parseScopes(text)).toThrow(ConfigError);
      expect(() => parseScopes(text)).toThrow(/^Invalid setting --scopes: /);
    },
  );

  it('knows the listing scope and flags others', () => {
    expect(KNOWN_SCOPES).toContain('empty_leg:read');
    expect(unknownScopes(['empty_leg:read', 'empty_legs:read'])).toEqual(['empty_legs:read']);
  });
});

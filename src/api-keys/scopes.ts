import { ConfigError } from '../errors.js';

/**
 * Scopes, each `resource:action` in lower case (docs/api-keys.md, "Scopes"). KNOWN_SCOPES: those some
 * endpoint requires today; a well-formed scope outside them is accepted, and the command warns about it.
 */
export const KNOWN_SCOPES: readonly string[] = ['api_key:read', 'api_key:write', 'empty_leg:read', 'enquiry:answer', 'enquiry:write', 'watch:read', 'watch:write'];
/** The scope that manages keys through the API: a client always keeps one active key holding it. */
export const WRITE_SCOPE = 'api_key:write';

export const SCOPE_PATTERN = /^[a-z][a-z0-9_]{0,39}:[a-z][a-z0-9_]{0,39}$/;
export const MAX_SCOPES = 20;

export function isScope(value: string): boolean {
  return SCOPE_PATTERN.test(value);
}

/** Parses `S1,S2`: trimmed, de-duplicated, sorted; at least one; each well-formed. */
export function parseScopes(text: string, setting = '--scopes'): string[] {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length === 0) throw new ConfigError(setting, 'at least one scope is required, e.g. empty_leg:read');
  const bad = parts.find((s) => !isScope(s));
  if (bad !== undefined) {
    throw new ConfigError(setting, `'${bad}' is not a scope: use resource:action in lower case, e.g. empty_leg:read`);
  }
  const scopes = [...new Set(parts)].sort();
  if (scopes.length > MAX_SCOPES) throw new ConfigError(setting, `at most ${MAX_SCOPES} scopes`);
  return scopes;
}

export function unknownScopes(scopes: readonly string[]): string[] {
  return scopes.filter((s) => !KNOWN_SCOPES.includes(s));
}

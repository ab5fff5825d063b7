import { describe, expect, it } from '@jest/globals';
import { createToolServer, SHARED_SCHEMA_VALIDATOR } from '../../../src/mcp/server.js';
import type { LegsApi } from '../../../src/mcp/tools.js';

const api = {} as LegsApi;
const validatorOf = (server: unknown) => (server as { _jsonSchemaValidator?: unknown })._jsonSchemaValidator;

describe('createToolServer', () => {
  it('gives every server the one shared JSON Schema validator, not an Ajv of its own per request', () => {
    const [a, b] = [createToolServer(api, ['empty_leg:read']), createToolServer(api, [])];
    expect(validatorOf(a)).toBe(SHARED_SCHEMA_VALIDATOR);
    expect(validatorOf(b)).toBe(SHARED_SCHEMA_VALIDATOR);
  });

  it('validates with it as the SDK would', () => {
    const check = SHARED_SCHEMA_VALIDATOR.getValidator<{ n: number }>({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    expect(check({ n: 1 }).valid).toBe(true);
    expect(check({ n: 'x' }).valid).toBe(false);
  });
});

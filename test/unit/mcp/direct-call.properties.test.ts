import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { checkedToolCall, plainToolCall } from '../../../src/mcp/direct-call.js';
import { fcParams } from '../../support/fast-check.js';

/**
 * The plain `tools/call` recognised without the SDK's schemas (src/mcp/direct-call.ts) is one the
 * SDK's schemas accept, read the same: on random messages near the shape, whatever `plainToolCall`
 * takes `checkedToolCall` (the SDK's zod schemas) takes too, with the same id, name and arguments.
 */
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constantFrom(1.5, -0, 2 ** 53, 2 ** 53 - 1, null, true, [], {}));
const json = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null));
const args = fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 3 }), fc.constantFrom(undefined, null, [], 'x', 3, [1]));
const params = fc.record(
  {
    name: fc.oneof(fc.constantFrom('search_empty_legs', 'get_empty_leg', ''), fc.integer(), fc.constant(null)),
    arguments: args,
    _meta: fc.constantFrom({}, { progressToken: 1 }, null),
    task: fc.constantFrom({}, { ttl: 1000 }),
    extra: json,
  },
  { requiredKeys: [] },
);
const anyMessage = fc.record(
  {
    jsonrpc: fc.constantFrom('2.0', '2.0', '1.0', 2),
    id,
    method: fc.constant('tools/call'),
    params: fc.oneof(params, fc.constantFrom(null, [], 'x')),
    extra: json,
  },
  { requiredKeys: ['method'] },
);
// Near the usual call: every member of a request, params with a name and maybe arguments.
const nearPlain = fc.record({
  jsonrpc: fc.constant('2.0'),
  id,
  method: fc.constant('tools/call'),
  params: fc.record({ name: fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), arguments: args }, { requiredKeys: ['name'] }),
});
const message = fc.oneof(anyMessage, nearPlain);

describe('a plain tools/call', () => {
  it('is one the SDK schemas take, read the same', () => {
    let plain = 0;
    fc.assert(
      fc.property(message, (m) => {
        const fast = plainToolCall(m);
        if (fast === undefined) return;
        plain++;
        const checked = checkedToolCall(m);
        expect({ m, checked }).toEqual({ m, checked: fast });
      }),
      fcParams(3000),
    );
    expect(plain).toBeGreaterThan(30);
  });

  it('takes the usual call and leaves the rest to the schemas', () => {
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_empty_legs', arguments: { size: 5 } } };
    expect(plainToolCall(call)).toEqual({ id: 7, params: { name: 'search_empty_legs', arguments: { size: 5 } } });
    expect(plainToolCall({ ...call, params: { ...call.params, _meta: { progressToken: 1 } } })).toBeUndefined();
    expect(checkedToolCall({ ...call, params: { ...call.params, _meta: { progressToken: 1 } } })).toMatchObject({ id: 7 });
    expect(plainToolCall({ ...call, id: 1.5 })).toBeUndefined();
    expect(plainToolCall({ ...call, extra: 1 })).toBeUndefined();
    // Arguments pass as they are, whatever the tool takes: get_empty_leg's group among them.
    const leg = { jsonrpc: '2.0', id: 'g', method: 'tools/call', params: { name: 'get_empty_leg', arguments: { id: 'EL-1', group: 'flight' } } };
    expect(plainToolCall(leg)).toEqual({ id: 'g', params: leg.params });
    expect(checkedToolCall(leg)).toEqual(plainToolCall(leg));
  });
});

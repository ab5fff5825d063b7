import { describe, expect, it } from '@jest/globals';
import { safeText } from '../../../cli/keys-output.js';
import { NAME_REFUSED } from '../../../src/api-keys/rules.js';

/** `npm run keys -- list` never prints a control or bidi character raw. */
describe('safeText', () => {
  it.each([
    ['a right-to-left override', 'A\u202eB', 'A\\u202eB'],
    ['an isolate pair', '\u2066x\u2069', '\\u2066x\\u2069'],
    ['a C1 control', 'a\u0085b', 'a\\u0085b'],
    ['a C0 control', 'a\u001bb', 'a\\u001bb'],
    ['plain text, accents and emoji', 'Société ✈️', 'Société ✈️'],
  ])('%s', (_what, text, shown) => {
    expect(safeText(text)).toBe(shown);
    expect(NAME_REFUSED.test(safeText(text))).toBe(false);
  });

  it('keeps a JSON line valid JSON, with the same value', () => {
    const json = safeText(JSON.stringify([{ name: 'x\u202e\u0085y' }]));
    expect(json).not.toMatch(NAME_REFUSED);
    expect(JSON.parse(json)).toEqual([{ name: 'x\u202e\u0085y' }]);
  });
});

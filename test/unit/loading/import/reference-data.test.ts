import { describe, expect, it } from '@jest/globals';
import { COUNTRY_CODES } from '../../../../src/loading/import/index.js';

describe('country codes', () => {
  it('holds the 249 officially assigned ISO 3166-1 codes plus XK, each one a region Intl knows', () => {
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    expect(COUNTRY_CODES.size).toBe(250);
    for (const code of COUNTRY_CODES) expect(names.of(code)).toBeDefined();
    for (const code of ['EU', 'UN', 'ZZ', 'UK', 'EZ', 'QO', 'AN', 'SU']) expect(COUNTRY_CODES.has(code)).toBe(false);
  });
});

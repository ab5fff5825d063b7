import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { digestOf, noneMatchFails, notModified, parseIfNoneMatch, weakTag } from '../../src/http/conditional.js';
import { compressResponse } from '../../src/http/compression.js';

const TAG = weakTag(digestOf(['x']));
const OPAQUE = TAG.slice(3, -1);

describe('parseIfNoneMatch (RFC 9110 §13.1.2, §8.8.3)', () => {
  it.each([
    ['*', '*'],
    ['  *  ', '*'],
    ['"a"', ['a']],
    ['W/"a"', ['a']],
    ['"a", W/"b" ,"c"', ['a', 'b', 'c']],
    ['"a",,  ,"b"', ['a', 'b']],
    ['""', ['']],
    ['"a,b"', ['a,b']],
  ])('%s reads as %j', (value, want) => {
    expect(parseIfNoneMatch(value)).toEqual(want);
  });

  it.each(['', 'a', '"a', 'w/"a"', '"a" "b"', '"a"; x', '*, "a"', '"a"b', ','])('%j is not a valid value: undefined', (value) => {
    expect(parseIfNoneMatch(value)).toBeUndefined();
  });

  it('reads back any list of tags it is given, weak or strong, in any spacing (property)', () => {
    const opaque = fc.string({ unit: fc.constantFrom(...'!#$%&()*+,-./0123456789:;<=>?@AZaz[]^_`{|}~'.split('')) });
    const element = fc.tuple(opaque, fc.boolean(), fc.constantFrom('', ' ', '\t', '  '));
    fc.assert(
      fc.property(fc.array(element, { minLength: 1, maxLength: 6 }), (elements) => {
        const value = elements.map(([o, weak, space]) => `${space}${weak ? 'W/' : ''}"${o}"${space}`).join(',');
        expect(parseIfNoneMatch(value)).toEqual(elements.map(([o]) => o));
      }),
    );
  });
});

describe('noneMatchFails: whether a GET gets 304', () => {
  it('matches the tag weakly: with or without W/, alone or in a list', () => {
    expect(noneMatchFails(TAG, TAG)).toBe(true);
    expect(noneMatchFails(`"${OPAQUE}"`, TAG)).toBe(true);
    expect(noneMatchFails(`"other", W/"${OPAQUE}"`, TAG)).toBe(true);
    expect(noneMatchFails('*', TAG)).toBe(true);
  });

  it('does not match another tag, a malformed value, or no header', () => {
    expect(noneMatchFails(weakTag(digestOf(['y'])), TAG)).toBe(false);
    expect(noneMatchFails(`${OPAQUE}`, TAG)).toBe(false);
    expect(noneMatchFails(`"${OPAQUE}`, TAG)).toBe(false);
    expect(noneMatchFails(`"${OPAQUE.toLowerCase()}x"`, TAG)).toBe(false);
    expect(noneMatchFails(undefined, TAG)).toBe(false);
  });
});

describe('digestOf and weakTag', () => {
  it('tell apart the same bytes split differently', () => {
    expect(weakTag(digestOf(['ab', 'c']))).not.toBe(weakTag(digestOf(['a', 'bc'])));
    expect(weakTag(digestOf(['ab', 'c']))).toBe(weakTag(digestOf(['ab', 'c'])));
  });
});

describe('notModified', () => {
  const ok = {
    statusCode: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', etag: TAG, 'cache-control': 'no-store', 'x-trace-id': 't' },
    body: '{"code":"OK"}',
  };

  it('is a 304 without a body or content headers, keeping the ETag and the rest', () => {
    expect(notModified(ok)).toEqual({ statusCode: 304, headers: { etag: TAG, 'cache-control': 'no-store', 'x-trace-id': 't' }, body: '' });
  });

  it('stays a 304 without a body through the compression of the response', () => {
    const out = compressResponse('gzip', notModified({ ...ok, body: 'x'.repeat(5_000) }));
    expect(out.statusCode).toBe(304);
    expect(out.body).toBe('');
    expect(out.headers?.['content-encoding']).toBeUndefined();
    expect(out.headers?.etag).toBe(TAG);
  });
});

import { describe, expect, it } from '@jest/globals';
import { gunzipSync } from 'node:zlib';
import { acceptsGzip, compressResponse, GZIP_MIN_BYTES } from '../../src/http/compression.js';

describe('acceptsGzip', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8', true],
    ['GZIP', true],
    ['*', true],
    ['identity', false],
    ['gzip;q=0', false],
    ['gzip;q=0, *', false],
    ['*;q=0', false],
    ['deflate, br', false],
    ['', false],
  ])('%j -> %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });

  it('no header: no gzip', () => {
    expect(acceptsGzip(undefined)).toBe(false);
  });
});

describe('compressResponse', () => {
  const big = JSON.stringify({ records: Array.from({ length: 50 }, (_, i) => ({ id: `leg-${i}`, city: 'London' })) });
  const response = { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: big };

  it('gzips a large body for a caller that accepts it, base64, with Content-Encoding and Vary', () => {
    const out = compressResponse('gzip', response);
    expect(out.isBase64Encoded).toBe(true);
    expect(out.headers).toMatchObject({ 'content-encoding': 'gzip', vary: 'Accept-Encoding', 'content-type': 'application/json; charset=utf-8' });
    expect(gunzipSync(Buffer.from(out.body!, 'base64')).toString('utf8')).toBe(big);
  });

  it('leaves a body of at most GZIP_MIN_BYTES, or a caller without gzip, alone (but says Vary)', () => {
    const small = { ...response, body: 'x'.repeat(GZIP_MIN_BYTES) };
    expect(compressResponse('gzip', small)).toEqual({ ...small, headers: { ...small.headers, vary: 'Accept-Encoding' } });
    expect(compressResponse('identity', response)).toEqual({ ...response, headers: { ...response.headers, vary: 'Accept-Encoding' } });
    expect(compressResponse('gzip', { ...small, body: 'x'.repeat(GZIP_MIN_BYTES + 1) }).isBase64Encoded).toBe(true);
  });
});

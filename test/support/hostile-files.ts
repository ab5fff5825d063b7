import fc from 'fast-check';
import { record } from './import-records.js';

/**
 * Generated hostile import files, as bytes: duplicate ids, nesting past the limit, huge lines,
 * huge numbers of fields, bytes that are not UTF-8, huge numbers, broken JSON. Every hostile line is
 * an invalid record, so every file holds one at least and must be refused.
 */
const utf8 = (s: string) => Buffer.from(s);

export const hostileLine: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom('A', 'B').map((id) => utf8(`{"id":"${id}"}`)),
  fc.tuple(fc.constantFrom('[', '{"a":'), fc.integer({ min: 17, max: 20_000 })).map(([open, k]) => utf8(open.repeat(k))),
  fc.integer({ min: 15, max: 3000 }).map((k) => utf8(`{"id":"Q","x":${'['.repeat(k)}${']'.repeat(k)}}`)),
  fc.integer({ min: 4000, max: 12_000 }).map((k) => utf8(JSON.stringify(record({ id: 'L', depCityName: 'x'.repeat(k) })))),
  fc.integer({ min: 1, max: 3000 }).map((k) => utf8(JSON.stringify(Object.fromEntries(Array.from({ length: k }, (_, i) => [`f${i}`, i]))))),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.nat({ max: 30 })).map(([bad, at]) => {
    const text = utf8(JSON.stringify(record({ id: 'U' })));
    const cut = Math.min(at + 10, text.length - 2);
    return Buffer.concat([text.subarray(0, cut), Buffer.from(bad.map((b) => 0x80 | b)), text.subarray(cut)]);
  }),
  fc.integer({ min: 20, max: 5000 }).map((k) => utf8(`{"id":"N","seatNum":${'9'.repeat(k)}}`)),
  fc.string({ maxLength: 200 }).map((s) => utf8(`{${s}`)),
);

/** A valid record; its id may repeat in a file (then every copy is a duplicate). */
export const validLine: fc.Arbitrary<Buffer> = fc.constantFrom('V1', 'V2', 'V3').map((id) => utf8(JSON.stringify(record({ id }))));

/** A file: hostile and valid lines, one hostile line at least, `\n` or `\r\n` line ends. */
export const hostileFile: fc.Arbitrary<Buffer> = fc
  .tuple(fc.array(fc.oneof(hostileLine, validLine), { maxLength: 40 }), hostileLine, fc.nat(), fc.constantFrom('\n', '\r\n'))
  .map(([lines, one, at, eol]) => {
    const all = [...lines];
    all.splice(at % (all.length + 1), 0, one);
    return Buffer.concat(all.flatMap((l) => [l, utf8(eol)]));
  });

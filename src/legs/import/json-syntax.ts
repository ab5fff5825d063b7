/** A JSON syntax checker that says where the first error is (V8's messages do not always). */

/** The 1-based line and column of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Finds the first JSON syntax error in `text` (V8's messages do not always carry a position).
 * Returns its offset and a short reason, or undefined when the text is valid JSON.
 */
export function findJsonSyntaxError(
  text: string,
  unit: 'file' | 'line' = 'file',
): { offset: number; reason: string } | undefined {
  let i = 0;
  class Stop extends Error {
    constructor(
      readonly offset: number,
      readonly reason: string,
    ) {
      super(reason);
    }
  }
  const fail = (reason?: string): never => {
    if (i >= text.length) throw new Stop(text.length, `unexpected end of ${unit}`);
    throw new Stop(i, reason ?? `unexpected character ${JSON.stringify(text[i])}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail();
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail('control character in a string (a line break inside a string must be written \\n)');
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('bad \\u escape');
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else fail('bad escape in a string');
      } else i++;
    }
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '-' || m[0] === '') fail();
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(text[i] === '}' ? 'trailing comma before }' : 'expected a "quoted" field name');
        string();
        ws();
        if (text[i] !== ':') fail("expected ':' after a field name");
        i++;
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail("expected ',' or '}'");
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] === ']') fail('trailing comma before ]');
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail("expected ',' or ']'");
      }
    } else if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else fail();
  };
  try {
    value();
    ws();
    if (i < text.length) fail('unexpected text after the end of the JSON value');
    return undefined;
  } catch (err) {
    if (err instanceof Stop) return { offset: err.offset, reason: err.reason };
    throw err;
  }
}


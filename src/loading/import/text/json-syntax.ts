/** JSON syntax checks that say where the first error is (V8's messages do not always), without recursion. */

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
 * The offset of the first `[` or `{` that opens a value nested deeper than `maxDepth` (a record is
 * depth 1, its amenities 2 and 3), or undefined. Strings are skipped; one pass, no recursion.
 */
export function findTooDeep(text: string, maxDepth: number): number | undefined {
  // Fast path: no more opening brackets than the depth allowed (native searches, most records).
  let opens = 0;
  for (const open of ['[', '{']) {
    for (let i = text.indexOf(open); i >= 0 && opens <= maxDepth; i = text.indexOf(open, i + 1)) opens++;
  }
  if (opens <= maxDepth) return undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return i;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth -= 1;
  }
  return undefined;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isWhitespace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/**
 * Finds the first JSON syntax error in `text`: its offset and a short reason, or undefined when the
 * text is valid JSON. Linear in the text, with an explicit stack: any depth is safe.
 */
export function findJsonSyntaxError(
  text: string,
  unit: 'file' | 'line' = 'file',
): { offset: number; reason: string } | undefined {
  let i = 0;
  const n = text.length;
  /** Open containers: `{` or `[`. */
  const stack: number[] = [];
  const error = (reason?: string) =>
    i >= n ? { offset: n, reason: `unexpected end of ${unit}` } : { offset: i, reason: reason ?? `unexpected character ${JSON.stringify(text[i])}` };
  const ws = () => {
    while (i < n && isWhitespace(text.charCodeAt(i))) i++;
  };
  /** Reads a string at `i` (its opening quote); a reason when it is broken. */
  const string = (): string | undefined | false => {
    i++;
    for (;;) {
      if (i >= n) return false;
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) return 'control character in a string (a line break inside a string must be written \\n)';
      if (c === 0x5c) {
        i++;
        const e = text[i];
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) if (!isHex(text.charCodeAt(i + k))) return 'bad \\u escape';
          i += 5;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i++;
        else return i >= n ? false : 'bad escape in a string';
      } else i++;
    }
  };
  /** Reads a scalar at `i`; false when there is none there. */
  const scalar = (): boolean => {
    const c = text.charCodeAt(i);
    for (const word of ['true', 'false', 'null']) {
      if (c === word.charCodeAt(0)) {
        for (const ch of word) {
          if (text[i] !== ch) return false;
          i++;
        }
        return true;
      }
    }
    // A number: its longest valid prefix (what follows is then checked as what follows a value).
    if (c !== 0x2d && !isDigit(c)) return false;
    let j = c === 0x2d ? i + 1 : i;
    if (text.charCodeAt(j) === 0x30) j++;
    else if (isDigit(text.charCodeAt(j))) while (isDigit(text.charCodeAt(j))) j++;
    else return false;
    if (text.charCodeAt(j) === 0x2e && isDigit(text.charCodeAt(j + 1))) {
      j += 2;
      while (isDigit(text.charCodeAt(j))) j++;
    }
    if (text.charCodeAt(j) === 0x65 || text.charCodeAt(j) === 0x45) {
      let k = j + 1;
      if (text.charCodeAt(k) === 0x2b || text.charCodeAt(k) === 0x2d) k++;
      if (isDigit(text.charCodeAt(k))) {
        while (isDigit(text.charCodeAt(k))) k++;
        j = k;
      }
    }
    i = j;
    return true;
  };

  // State: expecting a value, or what follows a value inside the innermost container.
  let expectValue = true;
  for (;;) {
    ws();
    if (expectValue) {
      const c = text.charCodeAt(i);
      if (c === 0x7b || c === 0x5b) {
        stack.push(c);
        i++;
        ws();
        if (text.charCodeAt(i) === (c === 0x7b ? 0x7d : 0x5d)) {
          i++;
          stack.pop();
          expectValue = false;
          if (stack.length === 0) break;
          continue;
        }
        if (c === 0x7b) {
          // A field name, then ':'.
          if (text.charCodeAt(i) !== 0x22) return error('expected a "quoted" field name');
          const broken = string();
          if (broken !== undefined) return error(broken || undefined);
          ws();
          if (text.charCodeAt(i) !== 0x3a) return error("expected ':' after a field name");
          i++;
        }
        continue;
      }
      if (c === 0x22) {
        const broken = string();
        if (broken !== undefined) return error(broken || undefined);
      } else {
        if (!scalar()) return error();
      }
      expectValue = false;
      if (stack.length === 0) break;
      continue;
    }
    // After a value inside a container.
    const open = stack[stack.length - 1]!;
    const close = open === 0x7b ? 0x7d : 0x5d;
    const c = text.charCodeAt(i);
    if (c === close) {
      i++;
      stack.pop();
      if (stack.length === 0) break;
      continue;
    }
    if (c !== 0x2c) return error(open === 0x7b ? "expected ',' or '}'" : "expected ',' or ']'");
    i++;
    ws();
    if (open === 0x7b) {
      if (text.charCodeAt(i) !== 0x22) return error(text.charCodeAt(i) === 0x7d ? 'trailing comma before }' : 'expected a "quoted" field name');
      const broken = string();
      if (broken !== undefined) return error(broken || undefined);
      ws();
      if (text.charCodeAt(i) !== 0x3a) return error("expected ':' after a field name");
      i++;
    } else if (text.charCodeAt(i) === 0x5d) return error('trailing comma before ]');
    expectValue = true;
  }
  ws();
  if (i < n) return error('unexpected text after the end of the JSON value');
  return undefined;
}

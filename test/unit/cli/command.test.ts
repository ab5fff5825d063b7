// @dateIndependent: exit statuses and messages; no clock.
import { describe, expect, it } from '@jest/globals';
import { runInNewContext } from 'node:vm';
import { CommandError, commandStatus, oneLine } from '../../../cli/command.js';
import { ConfigError } from '../../../src/errors.js';

describe('the commands’ exit status and one line', () => {
  it('reads the message of an error from another realm, as Node’s own errors are in a vm context', () => {
    const foreign = runInNewContext(`new Error("ENOENT: no such file,\\n open 'x'")`) as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(oneLine(foreign)).toBe("ENOENT: no such file, open 'x'");
    expect(CommandError.from(foreign).message).toBe("ENOENT: no such file,\n open 'x'");
    expect(oneLine('plain')).toBe('plain');
  });

  it('is 0 for a main that ends, the thrown status otherwise, its message on stderr', async () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string) => written.push(chunk) > 0;
    try {
      expect(await commandStatus(() => undefined)).toBe(0);
      expect(await commandStatus(() => Promise.reject(CommandError.usage('--x', 'bad')))).toBe(2);
      expect(await commandStatus(() => Promise.reject(new ConfigError('Y', 'bad')))).toBe(2);
      expect(await commandStatus(() => Promise.reject(new Error('down')))).toBe(1);
    } finally {
      process.stderr.write = write;
    }
    expect(written).toEqual(['Invalid setting --x: bad\n', 'Invalid setting Y: bad\n', 'down\n']);
  });
});

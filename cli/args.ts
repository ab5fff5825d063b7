import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../src/errors.js';

/**
 * Command-line parsing shared by the commands. A bad flag or setting becomes one line that names it
 * and exit status 2 (README, "Settings").
 */
export function parseCommandLine<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
  allowPositionals = true,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1] ?? 'arguments';
    throw new ConfigError(flag, message.replace(/\. To specify.*$/s, ''));
  }
}

/**
 * Runs a command's main function: a ConfigError prints one line and exits 2; any other error
 * prints its message and exits 1.
 */
export function runCommand(main: () => Promise<void>): void {
  main().then(
    () => undefined,
    (err: unknown) => {
      if (err instanceof ConfigError) {
        process.stderr.write(`${err.message}\n`);
        process.exit(2);
      }
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

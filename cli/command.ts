import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, settingMessage } from '../src/errors.js';

/**
 * The one style of every command (`npm start`, `npm run keys`, `legs:load`, `bench`, `load`,
 * `openapi`): its flags are read by `parseCommandLine`, it fails by throwing a `CommandError` that
 * carries its exit status, and its main function is run by `runCommand`.
 *
 * Exit status (README, "Settings"): 2 for a bad flag, argument or setting, one line naming it;
 * 1 for a refusal, an unreachable database or any other failure, one line.
 */
export const EXIT = { failure: 1, usage: 2 } as const;
export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

export class CommandError extends Error {
  override name = 'CommandError';

  constructor(
    readonly status: ExitStatus,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** A bad flag, argument or setting: `Invalid setting NAME: RULE`, exit 2. */
  static usage(setting: string, rule: string): CommandError {
    return new CommandError(EXIT.usage, settingMessage(setting, rule));
  }

  /** A failure: its message on one line, exit 1. */
  static failure(message: string, cause?: unknown): CommandError {
    return new CommandError(EXIT.failure, message, { cause });
  }

  /**
   * Any thrown value as a CommandError: a ConfigError (a setting read by the runtime's own parsers,
   * src/config.ts) exits 2; anything else not already a CommandError exits 1 with its message.
   */
  static from(err: unknown): CommandError {
    if (err instanceof CommandError) return err;
    if (err instanceof ConfigError) return new CommandError(EXIT.usage, err.message, { cause: err });
    return new CommandError(EXIT.failure, messageOf(err), { cause: err });
  }
}

/** The message of an error from any realm (a vm context's errors are not `instanceof Error`). */
function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  const e = err as { message?: unknown; name?: unknown } | null;
  if (typeof e === 'object' && e !== null && typeof e.message === 'string') return e.message || String(e.name);
  return String(err);
}

/** One line, whatever the SDK put in its message. */
export function oneLine(err: unknown): string {
  const text = messageOf(err);
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The command line, strictly: an unknown flag, a flag without its value or (unless allowed) a
 * positional argument is a usage error naming it.
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
    throw CommandError.usage(flag, message.replace(/\. To specify.*$/s, ''));
  }
}

/**
 * Runs a command's main function to its exit status: 0, or the status of what it threw
 * (CommandError.from), whose message goes to stderr.
 */
export async function commandStatus(main: () => Promise<void> | void): Promise<number> {
  try {
    await main();
    return 0;
  } catch (err) {
    const failure = CommandError.from(err);
    process.stderr.write(`${failure.message}\n`);
    return failure.status;
  }
}

/**
 * Runs a command's main function. When it fails, the error's message goes to stderr and the
 * process exits with the error's status (CommandError.from), ending whatever it started.
 */
export function runCommand(main: () => Promise<void> | void): void {
  void commandStatus(main).then((status) => {
    if (status !== 0) process.exit(status);
  });
}

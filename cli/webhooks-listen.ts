import './quiet-node-notice.js';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { CommandError, parseCommandLine, runCommand } from './command.js';
import { parseIntegerSetting } from '../src/config.js';
import { atClockInstant, processClock } from '../src/clock.js';
import { applyAtFlag } from './clock-flag.js';

/**
 * `npm run webhooks:listen -- --secret whsec_... [--port 9999] [--fail N] [--at INSTANT]`
 * (docs/watches.md, "By hand"): a receiver on 127.0.0.1 that verifies each delivery with the
 * standardwebhooks verifier at the clock (`--at`: the one `npm start -- --at` signs with) and
 * prints it; answers 204, or 503 to the first N attempts of each delivery (to watch the retries).
 */
const USAGE = `Usage: npm run webhooks:listen -- --secret whsec_... [--port 9999] [--fail N] [--at INSTANT]
  Listens on http://127.0.0.1:PORT/ (any path), verifies every delivery's signature with the
  watch's secret and prints it; answers 204 (503 to the first N attempts of each delivery with --fail).
  --at: judge the signatures' timestamps at that instant, as npm start -- --at INSTANT signs them
  (give both the same instant).`;

const OPTIONS = {
  secret: { type: 'string' },
  port: { type: 'string' },
  fail: { type: 'string' },
  at: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (positionals.length > 0) throw CommandError.usage('arguments', `unexpected argument '${positionals[0]!}'`);
  if (values.secret === undefined || !/^whsec_[A-Za-z0-9+/]+=*$/.test(values.secret)) {
    throw CommandError.usage('--secret', 'is required: the whsec_... secret the watch was created with');
  }
  applyAtFlag(values.at);
  const port = parseIntegerSetting('--port', values.port, 9999, 1, 65535);
  const failFirst = parseIntegerSetting('--fail', values.fail, 0, 0, 100);
  const verifier = new Webhook(values.secret);
  const attempts = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '-');
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      let verdict: string;
      let event: { type?: string; timestamp?: string; data?: { watchId?: string; id?: string } } = {};
      try {
        event = atClockInstant(processClock, () => verifier.verify(body, req.headers as Record<string, string>)) as typeof event;
        verdict = 'signature ok';
      } catch (err) {
        verdict = `SIGNATURE REFUSED (${err instanceof Error ? err.message : String(err)})`;
      }
      const status = attempt <= failFirst ? 503 : 204;
      process.stdout.write(
        `${new Date(processClock()).toISOString()} ${req.method ?? ''} ${req.url ?? ''} webhook-id ${id} attempt ${attempt}: ${verdict}; ` +
          `${event.type ?? '?'} leg ${event.data?.id ?? '?'} (watch ${event.data?.watchId ?? '?'}, changed ${event.timestamp ?? '?'}) -> ${status}\n`,
      );
      if (verdict === 'signature ok') process.stdout.write(`${body}\n`);
      res.writeHead(status);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(CommandError.failure(err.code === 'EADDRINUSE' ? `Port ${port} is already in use` : err.message)),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  process.stdout.write(`Listening on http://127.0.0.1:${port}/ (Ctrl-C stops)\n`);
}

runCommand(() => main(process.argv.slice(2)));

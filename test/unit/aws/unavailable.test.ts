import { describe, expect, it } from '@jest/globals';
import { createConnection } from 'node:net';
import { isUnavailable, isUnreachable } from '../../../src/aws/unavailable.js';
import { DeadlineError } from '../../../src/aws/deadline.js';

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
}

function named(name: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error('x'), { name }, extra);
}

/** A real refused connection: Node's own error, whatever shape it has (AggregateError or not). */
async function refused(): Promise<unknown> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: 1 });
    socket.once('error', resolve);
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
  });
}

describe('isUnreachable: the database did not answer', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])('%s', (code) => {
    expect(isUnreachable(errno(code))).toBe(true);
    expect(isUnavailable(errno(code))).toBe(true);
  });

  it.each(['TimeoutError', 'AbortError', 'RequestTimeout', 'RequestTimeoutException'])('a %s', (name) => {
    expect(isUnreachable(named(name))).toBe(true);
  });

  it('an invocation deadline', () => {
    expect(isUnreachable(new DeadlineError(100))).toBe(true);
  });

  it('a refused connection to a closed loopback port, as Node reports it', async () => {
    const err = await refused();
    expect(err).toBeDefined();
    expect(isUnreachable(err)).toBe(true);
  });

  it('looks through cause and AggregateError', () => {
    expect(isUnreachable(new Error('wrapped', { cause: errno('ECONNREFUSED') }))).toBe(true);
    expect(isUnreachable(new AggregateError([new Error('other'), errno('ECONNREFUSED')]))).toBe(true);
    expect(isUnreachable(new Error('a', { cause: new Error('b', { cause: new AggregateError([errno('ENOTFOUND')]) }) }))).toBe(true);
  });

  it('not an answer that is an error, nor anything else', () => {
    for (const err of [
      new Error('boom'),
      named('ResourceNotFoundException', { $metadata: { httpStatusCode: 400 } }),
      named('ThrottlingException'),
      errno('ENOENT'),
      'ECONNREFUSED',
      null,
      undefined,
    ]) {
      expect(isUnreachable(err)).toBe(false);
    }
  });
});

describe('isUnavailable: a retry later may succeed', () => {
  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'InternalServerError', 'ServiceUnavailable'])(
    'a %s',
    (name) => {
      expect(isUnavailable(named(name))).toBe(true);
      expect(isUnreachable(named(name))).toBe(false);
    },
  );

  it('a 5xx from the service, not a 4xx', () => {
    expect(isUnavailable(named('Whatever', { $metadata: { httpStatusCode: 503 } }))).toBe(true);
    expect(isUnavailable(named('ValidationException', { $metadata: { httpStatusCode: 400 } }))).toBe(false);
  });

  it('not a plain error', () => {
    expect(isUnavailable(new Error('boom'))).toBe(false);
    expect(isUnavailable(undefined)).toBe(false);
  });
});

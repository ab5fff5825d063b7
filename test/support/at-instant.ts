// The projects of TEST_INSTANTS (jest.config.js): this file's clock, and every process it starts,
// read the project's instant (CLOCK_AT, src/clock.ts) from now on.
import { CLOCK_AT_ANCHOR_ENV, CLOCK_AT_ENV, realClock } from '../../src/clock.js';

const instant = (globalThis as { TEST_INSTANT?: unknown }).TEST_INSTANT;
if (typeof instant !== 'string') throw new Error('at-instant.ts needs the project global TEST_INSTANT');
process.env[CLOCK_AT_ENV] = instant;
process.env[CLOCK_AT_ANCHOR_ENV] = String(realClock());

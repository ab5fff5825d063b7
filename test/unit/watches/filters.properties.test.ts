import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AirportIndex } from '../../../src/airports/reference.js';
import { AppError } from '../../../src/errors.js';
import { parseListQuery } from '../../../src/listing/query.js';
import { answeredFilters, parseWatchFilters, WATCH_FILTER_FIELDS } from '../../../src/watches/filters.js';
import { fcParams } from '../../support/fast-check.js';

/** A watch's filters are the listing's query parameters: the same parse, and the same refusals word for word. */
const airports = new AirportIndex([]);
const valueArb = fc.oneof(
  fc.constantFrom('', ' ', '0', '1', '15', '16', '-1', '+3', '850', '851', '1000', '1001', 'abc', 'LFPB', 'lfpb', 'LBG', 'EGL', 'EGLLX', 'Light Jet', 'light jet,heavy-jet', 'Glider', '2026-11-21', '2026-02-30', 'x', 'São', 'new york'),
  fc.string({ maxLength: 12 }),
);
const paramsArb = fc.dictionary(fc.constantFrom(...WATCH_FILTER_FIELDS.filter((f) => f !== 'depNear' && f !== 'arrNear')), valueArb, { maxKeys: 4 });

function outcome(run: () => unknown): { ok: unknown } | { error: string } {
  try {
    return { ok: run() };
  } catch (err) {
    if (err instanceof AppError) return { error: `${err.code}: ${err.message}` };
    throw err;
  }
}

describe('watch filters', () => {
  it('parse as the listing parses the same parameters, and refuse with the same message', () => {
    fc.assert(
      fc.property(paramsArb, (params) => {
        const listing = outcome(() => parseListQuery(params));
        const watch = outcome(() => parseWatchFilters(params, () => airports).parsed.query);
        expect(watch).toEqual(listing);
      }),
      fcParams(2000),
    );
  });

  it('refuse paging, unknown names and values that are neither strings nor numbers', () => {
    expect(() => parseWatchFilters({ size: 5 }, () => airports)).toThrow("Invalid parameter 'filters.size': paging does not apply to a watch");
    expect(() => parseWatchFilters({ page: 2 }, () => airports)).toThrow("Invalid parameter 'filters.page'");
    expect(() => parseWatchFilters({ depCity: 'x' }, () => airports)).toThrow("Invalid parameter 'filters.depCity': is not a listing query parameter");
    expect(() => parseWatchFilters({ minSeats: [4] }, () => airports)).toThrow("Invalid parameter 'minSeats': must be a string or a number");
    expect(() => parseWatchFilters([], () => airports)).toThrow("Invalid parameter 'filters'");
    expect(() => parseWatchFilters({ depNear: 'EGLX' }, () => airports)).toThrow("Invalid parameter 'depNear': no airport has the ICAO code 'EGLX'");
  });

  it('answer integers as numbers and the rest as given', () => {
    const { stored } = parseWatchFilters({ minSeats: 4, offsetDays: '+2', depDate: '2026-11-21', aircraftType: 'light jet' }, () => airports);
    expect(answeredFilters(stored)).toEqual({ depDate: '2026-11-21', offsetDays: 2, minSeats: 4, aircraftType: 'light jet' });
  });
});

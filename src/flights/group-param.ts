import * as v from 'valibot';
import { optionalRaw, shaped } from '../http/query-params.js';

/** What a record of the answer is (docs/api.md, "Flights"); absent is `leg`. */
export const GROUPS = ['leg', 'flight'] as const;
export const groupRule = shaped(v.pipe(
  optionalRaw,
  v.check((s) => s === undefined || (GROUPS as readonly string[]).includes(s), `must be one of ${GROUPS.join(', ')}`),
  v.transform((s) => (s === 'leg' ? undefined : (s as 'flight' | undefined))),
), { type: 'string', enum: [...GROUPS], default: 'leg' }, true);

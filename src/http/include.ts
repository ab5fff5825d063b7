import { invalidParameter } from '../errors.js';
import { INCLUDE_RULE, parseInclude, type Include } from '../kernel/leg/blocks.js';

/** The `include` query parameter (docs/api.md, "Provenance and departure"); a bad one is INVALID_PARAMETER naming it. */
export function includeOf(params: Readonly<Record<string, string | undefined>> | undefined | null): Include {
  const include = parseInclude(params?.include);
  if (include === null) throw invalidParameter('include', INCLUDE_RULE);
  return include;
}

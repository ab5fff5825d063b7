/** What other capabilities may use of listing/: its public surface (eslint.boundaries.js). */
export { compileQuery, type CompiledQuery } from './listing.js';
export { INTEGER_PARAMETERS, LIST_QUERY_FIELDS, parseListQuery, type ListQuery } from './query.js';
export { countListedBySource } from './list-legs.js';

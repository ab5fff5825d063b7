/** What other capabilities may use of listing/: its public surface (eslint.boundaries.js). */
export { bucketReads, compileQuery, type CompiledQuery } from './listing.js';
export { FLAG_PARAMETERS, INTEGER_PARAMETERS, LIST_QUERY_FIELDS, PARAMETER_SHAPES, parseListQuery, type ListQuery } from './query.js';
export { countListedBySource, listedIdsOfSource, listEmptyLegs, listWithRegistry, usesRegistry, type LegsPage, type ListedLeg } from './list-legs.js';
export { MatchMemo } from './match-memo.js';
export { createLegsRepository, type LegsRepository } from './repository.js';

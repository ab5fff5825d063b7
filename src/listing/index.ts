/** What other capabilities may use of listing/: its public surface (eslint.boundaries.js). */
export { matches, queryWindow } from './listing.js';
export { nearOf, type Near } from './nearby.js';
export { LIST_QUERY_FIELDS, parseListQuery, type ListQuery } from './query.js';

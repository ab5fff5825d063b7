/** Entries of one change log index page (src/changes/store.ts). */
export const CHANGE_PAGE_SIZE = 50;

/** Entries of the change log a follower reads at once (FOLLOW_MAX): 40 pages. */
export const MAX_FOLLOWED_ENTRIES = 2_000;

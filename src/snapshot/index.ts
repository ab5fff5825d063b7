/** What other capabilities may use of snapshot/: its public surface (eslint.boundaries.js). */
export { SNAPSHOT_MANIFEST_ID, covers, decodeBucket, decodeManifest, partId, sliceByStart, type SnapshotManifest } from './snapshot.js';

import TestSequencer from '@jest/test-sequencer';

/** Test layers, slowest first: files that start processes before the quick ones. */
const LAYERS = ['e2e', 'infra', 'integration', 'handler', 'unit'];
const rank = (file) => {
  const i = LAYERS.findIndex((layer) => file.includes(`/test/${layer}/`));
  return i < 0 ? LAYERS.length : i;
};

/**
 * Jest's order (failed first, then by last duration or by size) within each layer, the slow layers
 * first, so that no long file is left to start when the quick ones are done.
 */
export default class SlowLayersFirst extends (TestSequencer.default ?? TestSequencer) {
  sort(tests) {
    return [...super.sort(tests)].sort((a, b) => rank(a.path) - rank(b.path));
  }
}

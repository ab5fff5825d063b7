import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { EDITS, GENERATED } from '../../../scripts/walkthrough-check.js';
import { isPattern, walkthroughFiles, WALKTHROUGHS } from '../../../scripts/walkthrough-files.js';

/**
 * CONTRIBUTING.md's walkthroughs name files that exist, and the filter walkthrough's list is the one
 * `npm run walkthrough:check` edits (that command then builds and tests the edited clone).
 */
const contributing = readFileSync('CONTRIBUTING.md', 'utf8');

describe("CONTRIBUTING.md's walkthroughs", () => {
  it.each(WALKTHROUGHS)('%s: every file listed exists (a pattern: the folder before its first placeholder does)', (name) => {
    const files = walkthroughFiles(contributing, name);
    expect(files.length).toBeGreaterThan(0);
    const missing = files.filter((f) => !existsSync(isPattern(f) ? f.slice(0, f.search(/[<>*]/)) : f));
    expect(missing).toEqual([]);
    expect(new Set(files).size).toBe(files.length);
  });

  it('filter: names files only, no pattern, and exactly those the check edits or generates', () => {
    const files = walkthroughFiles(contributing, 'filter');
    expect(files.filter(isPattern)).toEqual([]);
    expect([...files].sort()).toEqual([...new Set([...EDITS.map((e) => e.file), GENERATED])].sort());
  });

  it("filter: each of the check's anchors occurs once in its file, so the check can still follow it", () => {
    const counts = EDITS.map((e) => ({ file: e.file, anchor: e.anchor.slice(0, 60), count: readFileSync(e.file, 'utf8').split(e.anchor).length - 1 }));
    expect(counts.filter((c) => c.count !== 1)).toEqual([]);
  });

  it('the parser refuses a missing list, and reads only the first code span of a list item', () => {
    expect(() => walkthroughFiles('no markers here', 'filter')).toThrow('walkthrough-files: filter');
    const doc = '<!-- walkthrough-files: endpoint -->\n- `a.ts` (see `b.ts`)\ntext `c.ts`\n1. `d.ts`\n<!-- /walkthrough-files -->';
    expect(walkthroughFiles(doc, 'endpoint')).toEqual(['a.ts', 'd.ts']);
  });
});

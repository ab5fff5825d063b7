/**
 * The file lists of CONTRIBUTING.md's walkthroughs: the list items between
 * `<!-- walkthrough-files: NAME -->` and `<!-- /walkthrough-files -->`, each item's first code span.
 * A path with `<...>` in it is a pattern (`functions/<name>/handler.ts`), not a file.
 */
export const WALKTHROUGHS = ['filter', 'endpoint', 'function', 'capability'] as const;
export type Walkthrough = (typeof WALKTHROUGHS)[number];

/** The paths listed for `name`, in order; throws when the markers are missing or the list is empty. */
export function walkthroughFiles(markdown: string, name: Walkthrough): string[] {
  const start = `<!-- walkthrough-files: ${name} -->`;
  const from = markdown.indexOf(start);
  if (from < 0) throw new Error(`CONTRIBUTING.md has no "${start}" marker`);
  const to = markdown.indexOf('<!-- /walkthrough-files -->', from);
  if (to < 0) throw new Error(`CONTRIBUTING.md: the "${name}" file list has no closing marker`);
  const paths = markdown
    .slice(from + start.length, to)
    .split('\n')
    .map((line) => /^\s*(?:[-*]|\d+\.)\s+`([^`]+)`/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
  if (paths.length === 0) throw new Error(`CONTRIBUTING.md: the "${name}" file list names no file`);
  return paths;
}

/** True for a pattern such as `src/<capability>/handlers.ts`. */
export const isPattern = (path: string): boolean => /[<>*]/.test(path);

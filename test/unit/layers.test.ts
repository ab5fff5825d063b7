import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The layers of src/, read from the real imports: no module imports one that imports it back
 * (directly or around a circle), no part of src/ (a folder or a root module: a capability, the
 * kernel, the platform) does either, and no module imports a handler factory (only functions/ does).
 */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

const FILES = sources('src');
const MAX_FILES_PER_FOLDER = 12;
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*'(\.[^']+)'/g;

function importsOf(file: string): string[] {
  const out: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const target = path.normalize(path.join(path.dirname(file), m[1]!)).replace(/\.js$/, '.ts');
    if (FILES.includes(target)) out.push(target);
  }
  return out;
}

const GRAPH = new Map(FILES.map((f) => [f, importsOf(f)]));
const isHandlerFactory = (file: string) => /(^|[-/])handlers?\.ts$/.test(file);
/** The part of src/ a file belongs to: its top folder (`listing`, `kernel`, `http`…) or, at the root, itself (`logger.ts`). */
const partOf = (file: string): string => path.relative('src', file).split(path.sep)[0]!;

/** Part A -> B when a file of A imports a file of B (A != B), from a file-level graph. */
function partGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const edges = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = partOf(file);
    const to = edges.get(from) ?? edges.set(from, new Set()).get(from)!;
    for (const target of targets.map(partOf)) if (target !== from) to.add(target);
  }
  return new Map([...edges].map(([part, to]) => [part, [...to]]));
}

/** The circles of a graph (Tarjan's strongly connected components of more than one file, or a self-import). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const part: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(part.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the layers of src/', () => {
  it('reads the tree (the check can see imports)', () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(GRAPH.get(path.join('src', 'listing', 'list-handler.ts'))).toContain(path.join('src', 'listing', 'list-legs.ts'));
  });

  it('has no circle of imports: no module imports from the layer that calls it', () => {
    expect(circles(GRAPH)).toEqual([]);
  });

  it('finds a circle when there is one (the check can fail)', () => {
    const graph = new Map([...GRAPH, [path.join('src', 'listing', 'list-legs.ts'), [path.join('src', 'listing', 'list-handler.ts')]]]);
    expect(circles(graph).length).toBeGreaterThan(0);
  });

  it('has no circle of parts: capability folders, the kernel and the platform import each other one way', () => {
    const parts = partGraph(GRAPH);
    expect(parts.get('listing')).toContain('snapshot');
    expect(parts.get('logger.ts')).toContain('auth');
    expect(circles(parts)).toEqual([]);
  });

  it('finds a circle of parts when there is one (the check can fail)', () => {
    const withEdge = (file: string, target: string) => new Map([...GRAPH, [file, [...GRAPH.get(file)!, target]]]);
    const snapshot = withEdge(path.join('src', 'snapshot', 'snapshot.ts'), path.join('src', 'listing', 'listing.ts'));
    expect(circles(partGraph(snapshot))).toEqual([['listing', 'snapshot']]);
    // The platform's logger reaching into a capability that logs (as redact.ts once read keys/).
    const redact = withEdge(path.join('src', 'auth', 'redact.ts'), path.join('src', 'keys', 'format.ts'));
    expect(circles(partGraph(redact)).flat()).toEqual(expect.arrayContaining(['keys', 'logger.ts', 'auth']));
  });

  it('imports no handler factory from src/: the entry files of functions/ compose them', () => {
    const wrong = [...GRAPH].flatMap(([file, targets]) => targets.filter(isHandlerFactory).map((t) => `${file} -> ${t}`));
    expect(wrong).toEqual([]);
  });

  it('keeps every folder of src/ within 12 files', () => {
    const counts = new Map<string, number>();
    for (const file of FILES) counts.set(path.dirname(file), (counts.get(path.dirname(file)) ?? 0) + 1);
    expect(counts.get(path.join('src', 'keys'))).toBeGreaterThan(0);
    const crowded = [...counts].filter(([, n]) => n > MAX_FILES_PER_FOLDER);
    expect(crowded).toEqual([]);
  });

  it('keeps every runtime file within 300 lines', () => {
    const long = FILES.map((f) => [f, readFileSync(f, 'utf8').split('\n').length] as const).filter(([, n]) => n > 301);
    expect(long).toEqual([]);
  });
});

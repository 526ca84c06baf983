import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { preProcessFile } from 'typescript';

// Issue 22, "arrows point down": the modules of lib/ as a graph, read from every import (type-only
// ones included), must have no circle, and the operator clients stay apart: no module imports the
// CLI, the console and the CLI import neither each other (their composition root is functions/).

const ROOT = join(__dirname, '..', '..');
const LIB = join(ROOT, 'lib');

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The lib/ module a path is in (`lib/zk/session.ts`, `lib/zk` → `zk`), or undefined outside lib/ or for lib/*.ts. */
function moduleOf(path: string): string | undefined {
  const [first] = relative(LIB, path).split(sep);
  if (first === undefined || first === '' || first === '..') return undefined;
  return existsSync(join(LIB, first)) && statSync(join(LIB, first)).isDirectory() ? first : undefined;
}

/** Module → the modules it imports. */
function moduleGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(LIB)) {
    const from = moduleOf(file);
    if (from === undefined) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    // TypeScript's own reading of the file's imports and re-exports (type-only ones included).
    for (const { fileName: spec } of preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!spec.startsWith('.')) continue;
      const to = moduleOf(normalize(join(dirname(file), spec)));
      if (to !== undefined && to !== from) edges.add(to);
    }
  }
  return graph;
}

/** Every circle of the graph, each as the path that closes it. */
function circles(graph: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  const visit = (node: string, path: string[]): void => {
    for (const next of graph.get(node) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) found.push([...path.slice(at), next]);
      else visit(next, [...path, next]);
    }
  };
  for (const start of graph.keys()) visit(start, [start]);
  return found;
}

describe('the module graph of lib/', () => {
  const graph = moduleGraph();

  it('reads the modules and their imports', () => {
    expect([...graph.keys()]).toEqual(expect.arrayContaining(['cli', 'console', 'operator', 'requests', 'safety', 'zk', 'd2', 'xds']));
    expect(graph.get('cli')).toContain('operator');
  });

  it('has no circle between modules, type-only imports included', () => {
    expect(circles(graph).map((c) => c.join(' → '))).toEqual([]);
  });

  it('has no module importing the CLI; the console and the CLI import neither each other', () => {
    const importers = [...graph].filter(([, to]) => to.has('cli')).map(([from]) => from);
    expect(importers).toEqual([]);
    expect(graph.get('console')).not.toContain('cli');
    expect(graph.get('cli')).not.toContain('console');
  });

  it('finds a circle when there is one (the check itself)', () => {
    const withCircle = new Map([...graph].map(([k, v]) => [k, new Set(v)]));
    withCircle.get('zk')!.add('cli');
    expect(circles(withCircle).length).toBeGreaterThan(0);
  });
});

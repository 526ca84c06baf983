/**
 * One lifecycle vocabulary (lib/lifecycle): every component stops with `close()`, and a field or getter
 * named `lifecycle` is typed `Lifecycle`, never a union of its own. Read from the source, so that a new
 * component that says `stop()`, `shutdown()` or `'latent' | 'started'` fails here rather than in review.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** Components still on their own vocabulary, to move to `Lifecycle` (issue 22: the console's owner). */
const NOT_YET: string[] = [];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line: text` of every line in lib/ that matches `pattern`. */
function linesMatching(pattern: RegExp): string[] {
  return sources(join(ROOT, 'lib')).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('the lifecycle vocabulary', () => {
  it('stops every component with close(), never stop() or shutdown()', () => {
    // Act: method declarations, interface members and object-literal members without parameters.
    const found = linesMatching(/^\s*(?:(?:public|private|protected)\s+)?(?:async\s+)?(?:stop|shutdown)(?:\(\)\s*:|:\s*(?:async\s*)?\(\)\s*=>)/);

    // Assess
    expect(found).toEqual([]);
  });

  it('types every lifecycle field and getter with Lifecycle', () => {
    // Act: `lifecycle: 'a' | …`, `lifecycleValue: Foo = …`, `get lifecycle(): Foo` with another type.
    const found = linesMatching(/^\s*[^\s*/].*\blifecycle(?:Value)?\??\s*(?:\(\))?\s*:\s*(?!Lifecycle\b)[A-Z'"]/).filter((line) => !NOT_YET.some((file) => line.startsWith(`${file}:`)));

    // Assess
    expect(found).toEqual([]);
  });
});

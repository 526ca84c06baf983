/**
 * Reading the documentation's markdown for the docs tests (test/unit/docs): which pages there are,
 * the anchors GitHub gives their headings, their relative links, and a section's code block. Only as
 * much markdown as the pages use: ATX headings (`## …`), inline links and images, fenced code blocks
 * and code spans.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root. */
export const REPO_ROOT = join(__dirname, '..', '..');

/** The documentation pages, relative to the root: README.md and every docs/*.md (docs/api is generated HTML). */
export function docPages(): string[] {
  const pages = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...pages];
}

/** Reads a page (a path relative to the root). */
export function readPage(page: string): string {
  return readFileSync(join(REPO_ROOT, page), 'utf8');
}

/** One line of a page outside its fenced code blocks, with its 1-based number. */
interface ProseLine {
  readonly text: string;
  readonly line: number;
}

/** The lines of `markdown` outside fenced code blocks (``` or ~~~, closed by a fence of the same kind, at least as long). */
function proseLines(markdown: string): ProseLine[] {
  const lines: ProseLine[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) fence = undefined;
      return;
    }
    if (marker !== undefined) {
      fence = marker;
      return;
    }
    lines.push({ text, line: index + 1 });
  });
  return lines;
}

/** `text` with its code spans (`` `x` ``, ``` ``x`y`` ```) replaced by `code`, so nothing inside one reads as a link. */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)(?:[^`]|(?!\1)`+)*?\1(?!`)/g, 'code');
}

/**
 * GitHub's anchor for a heading's text: the rendered text (link targets, emphasis and code-span marks
 * dropped) lowercased, every character that is not a letter, a mark, a digit, a connector (`_`), a
 * space or a hyphen removed, and each space turned into a hyphen (github-slugger's rule, which
 * github.com follows).
 */
export function githubSlug(heading: string): string {
  // Code spans render as written (`_` and `*` in them are no emphasis); outside them links render as
  // their text and emphasis marks vanish (`_` only at word edges: `a_b_c` is no emphasis in GFM).
  const rendered = heading
    .split(/(`+[^`]*`+)/)
    .map((part, index) =>
      index % 2 === 1
        ? part.replace(/`/g, '')
        : part
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/(\*{1,3})(\S(?:.*?\S)?)\1/g, '$2')
            .replace(/(^|[^\p{L}\p{N}])(_{1,3})(\S(?:.*?\S)?)\2(?![\p{L}\p{N}])/gu, '$1$3'),
    )
    .join('');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/**
 * Every heading anchor of a page, in order, as GitHub makes them: the second heading with the same
 * slug gets `-1`, the third `-2`, and so on (skipping a suffixed slug another heading already has).
 */
export function headingAnchors(markdown: string): string[] {
  const taken = new Set<string>();
  const seen = new Map<string, number>();
  const anchors: string[] = [];
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const base = githubSlug(heading);
    let slug = base;
    let count = seen.get(base) ?? 0;
    while (taken.has(slug)) {
      count += 1;
      slug = `${base}-${count}`;
    }
    seen.set(base, count);
    taken.add(slug);
    anchors.push(slug);
  }
  return anchors;
}

/** One inline link or image of a page: its target as written and the line it is on. */
export interface MarkdownLink {
  readonly text: string;
  readonly target: string;
  readonly line: number;
}

/** Every inline link and image (`[x](target)`, `![x](target "title")`) outside code, in order. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  const pattern = /!?\[((?:[^[\]]|\[[^\]]*\])*)\]\(\s*<?([^()\s<>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
  for (const { text, line } of proseLines(markdown)) {
    for (const match of withoutCodeSpans(text).matchAll(pattern)) links.push({ text: match[1], target: match[2], line });
  }
  return links;
}

/** Whether a link leaves the repository's pages: http(s) and mailto links are not checked. */
export function isExternal(target: string): boolean {
  return /^(?:https?:|mailto:)/i.test(target);
}

/**
 * The lines of the fenced code blocks in the section under the heading `heading` (its text as
 * written, without the `#`s), up to the next heading of the same or a higher level.
 */
export function sectionCodeLines(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '') === heading);
  if (start < 0) return [];
  const level = /^#+/.exec(lines[start])![0].length;
  const code: string[] = [];
  let inFence = false;
  for (const line of lines.slice(start + 1)) {
    if (/^ {0,3}(`{3,}|~{3,})/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (!inFence && new RegExp(`^#{1,${level}} `).test(line)) break;
    if (inFence) code.push(line);
  }
  return code;
}

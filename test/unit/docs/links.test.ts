import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { docPages, githubSlug, headingAnchors, isExternal, markdownLinks, readPage, REPO_ROOT } from '../../helpers/docs-markdown';

// Issue 22: the README is a front page and the rest lives in docs/*.md, one page per reader, joined by
// relative links. Every relative link and anchor of README.md and docs/*.md must resolve: the file
// exists (inside the repository, so a clean clone has it) and the anchor is a heading of the target,
// as GitHub spells it. http(s) and mailto links are not fetched.

/** Why a link does not resolve, or undefined when it does. */
function problemOf(page: string, target: string): string | undefined {
  const hash = target.indexOf('#');
  const path = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = path === '' ? join(REPO_ROOT, page) : join(REPO_ROOT, dirname(page), decodeURIComponent(path));
  const inRepo = relative(REPO_ROOT, file);
  if (inRepo.startsWith(`..${sep}`) || inRepo === '..') return `${path} is outside the repository`;
  if (!existsSync(file)) return `${inRepo} does not exist`;
  if (anchor === undefined) return undefined;
  if (!statSync(file).isFile() || !file.endsWith('.md')) return `#${anchor} points into ${inRepo}, which is not a markdown page`;
  const anchors = headingAnchors(readPage(inRepo));
  return anchors.includes(anchor) ? undefined : `${inRepo} has no heading #${anchor}`;
}

describe('githubSlug and headingAnchors (GitHub heading anchors)', () => {
  it.each([
    ['Access control (ZooKeeper ACLs)', 'access-control-zookeeper-acls'],
    ["ZooKeeper over TLS: the session's own transport", 'zookeeper-over-tls-the-sessions-own-transport'],
    ['`D2ClientConfig`', 'd2clientconfig'],
    ['lib/zk in one screen', 'libzk-in-one-screen'],
    ['The guard could not restore (`GuardFailures`)', 'the-guard-could-not-restore-guardfailures'],
    ['Run `FAILOUT_ALARMS_URL` now', 'run-failout_alarms_url-now'],
    ['**Bold** and _emphasis_', 'bold-and-emphasis'],
    ['A [linked](other.md) heading', 'a-linked-heading'],
    ['Two  spaces', 'two--spaces'],
    ['Zürich → ok', 'zürich--ok'],
  ])('slugs %j as %j', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('numbers repeated headings -1, -2 and skips headings inside code blocks', () => {
    const markdown = ['# Tests', '## Tests', '```sh', '# not a heading', '```', '### Tests', '## Tests-1'].join('\n');

    expect(headingAnchors(markdown)).toEqual(['tests', 'tests-1', 'tests-2', 'tests-1-1']);
  });
});

describe('relative links in README.md and docs/*.md', () => {
  const pages = docPages();

  it('finds the README and the reader pages', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/operators.md', 'docs/service-owners.md', 'docs/deployers.md', 'docs/contributors.md', 'docs/api.md']));
  });

  it.each(pages)('%s: every relative link names a file that exists and a heading it has', (page) => {
    const links = markdownLinks(readPage(page)).filter((link) => !isExternal(link.target));

    const problems = links.flatMap((link) => {
      const problem = problemOf(page, link.target);
      return problem === undefined ? [] : [`${page}:${link.line} [${link.text}](${link.target}): ${problem}`];
    });

    expect(problems).toEqual([]);
  });

  it('checks links on every page, anchors among them', () => {
    const checked = pages.flatMap((page) => markdownLinks(readPage(page)).filter((link) => !isExternal(link.target)).map((link) => ({ page, ...link })));
    const withAnchors = checked.filter((link) => link.target.includes('#'));
    const pagesWithLinks = new Set(checked.map((link) => link.page));

    expect(checked.length).toBeGreaterThan(50);
    expect(withAnchors.length).toBeGreaterThan(20);
    expect([...pagesWithLinks].sort()).toEqual([...pages].sort());
  });

  it('reports a missing file, a missing anchor and a link out of the repository', () => {
    expect(problemOf('README.md', 'docs/no-such-page.md')).toBe('docs/no-such-page.md does not exist');
    expect(problemOf('README.md', 'docs/operators.md#no-such-heading')).toBe('docs/operators.md has no heading #no-such-heading');
    expect(problemOf('docs/operators.md', '#no-such-heading')).toBe('docs/operators.md has no heading #no-such-heading');
    expect(problemOf('docs/contributors.md', '../../shared/design/ARCHITECTURE.md')).toBe('../../shared/design/ARCHITECTURE.md is outside the repository');
    expect(problemOf('docs/operators.md', 'console.png')).toBeUndefined();
  });
});

describe('README.md', () => {
  it('stays a front page: 300 lines or fewer', () => {
    const lines = readPage('README.md').split('\n');
    const count = lines.at(-1) === '' ? lines.length - 1 : lines.length;

    expect(count).toBeLessThanOrEqual(300);
  });
});

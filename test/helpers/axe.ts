import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

/**
 * axe-core (the engine, injected from node_modules) over a page in Chromium: the WCAG 2.1 A/AA rules
 * (issue 24, item 8). The console's browser tests call it in every state they visit.
 */

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** What axe reports of one violated rule (the little read here). */
interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly unknown[] }[];
}

declare const axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> };
declare const document: unknown;

/** The serious and critical WCAG 2.1 A/AA violations of the page as it is now, one line each; lesser findings are printed. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // evaluate runs outside the page's Content-Security-Policy, which forbids injected scripts.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => (await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations);
  const lesser = violations.filter((v) => v.impact !== 'serious' && v.impact !== 'critical');
  if (lesser.length > 0) console.info(`axe, lesser findings: ${lesser.map((v) => `${v.id} (${v.impact ?? 'n/a'})`).join(', ')}`);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

import type { Browser, Page } from 'playwright-core';
import type { LocalStack } from '../../lib/local/stack';
import { launchBrowser } from './browser';

/**
 * The console's form as an operator drives it in Chromium (test/e2e): open the page on a local stack,
 * fill the form, Check, Confirm and wait for the worker's outcome.
 */

/** Chromium on the stack's console, its live stream connected. */
export async function openConsole(stack: LocalStack): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(stack.console.url);
  await page.locator('#live.ok').waitFor({ timeout: 10_000 });
  return { browser, page };
}

/** Fills the form's fields by id (`f-action` is the select). */
export async function fillForm(page: Page, fields: Record<string, string>): Promise<void> {
  for (const [id, value] of Object.entries(fields)) {
    if (id === 'f-action') await page.selectOption('#f-action', value);
    else await page.fill(`#${id}`, value);
  }
}

/** What `/api/check` answered. */
export interface CheckAnswer {
  readonly kind: string;
  readonly body?: { readonly requestId: string };
  readonly reason?: string;
}

/** Clicks Check and waits for its answer on the page; returns the answer as the server sent it. */
export async function checkForm(page: Page): Promise<CheckAnswer> {
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/check'));
  await page.click('#check');
  const json = (await (await answer).json()) as CheckAnswer;
  await page.locator('#judgement:not(.busy)').waitFor({ timeout: 10_000 });
  return json;
}

/** Confirms and waits until the worker applied the request; returns its id. */
export async function confirmApplied(page: Page): Promise<string> {
  // The page puts each sent request first in the list: wait for the new one, not the one before it.
  const sent = await page.locator('#followed li').count();
  await page.click('#confirm');
  await page.locator('#followed li').nth(sent).waitFor({ timeout: 10_000 });
  const requestId = (await page.locator('#followed li').first().getAttribute('data-request'))!;
  await page.locator(`#followed li[data-request="${requestId}"].outcome-applied`).waitFor({ timeout: 20_000 });
  return requestId;
}

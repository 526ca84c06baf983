// Re-shoots docs/console.png, the console's picture in docs/operators.md, on a realistic state of the
// local stack (no test strings): traffic on both services, greetings-lor1 failed out onto lva1 and
// ltx1 with a stop alarm, hello-lor1 ramping onto hello-lva1, health numbers on the cards, the chart
// showing the move. `npm run docs:console-shot` (Debian's Chromium; scripts/setup.cjs installs it).
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { errorAlarmName } from '../lib/local';
import { LocalStack } from '../lib/local/stack';

const CHROMIUM = process.env.FAILOUT_CHROMIUM ?? '/usr/bin/chromium';
const OUT = join(__dirname, '..', 'docs', 'console.png');

/** Fills the form as an operator does, Check, Confirm, and waits for the worker's outcome. */
async function request(page: Page, fields: Record<string, string>): Promise<void> {
  await page.selectOption('#f-action', fields['f-action'] ?? 'failout');
  // The form keeps what was typed for the next request: start each one from empty fields.
  for (const id of ['f-peers', 'f-for', 'f-until', 'f-at', 'f-share', 'f-buckets', 'f-ramp', 'f-alarms', 'f-reason']) await page.fill(`#${id}`, '');
  for (const [id, value] of Object.entries(fields)) if (id !== 'f-action') await page.fill(`#${id}`, value);
  await page.click('#check');
  await page.locator('#confirm:not([hidden])').waitFor({ timeout: 10_000 });
  const sent = await page.locator('#followed li').count();
  await page.click('#confirm');
  await page.locator('#followed li').nth(sent).waitFor({ timeout: 10_000 });
  await page.locator('#followed li.outcome-applied').nth(sent).waitFor({ timeout: 20_000 });
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const stack = await LocalStack.start({ rate: 40, consolePort: 0, progress: (line) => process.stderr.write(`${line}\n`) });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(stack.console.url);
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
    // A minute of normal traffic first, so the chart shows the move against a steady line.
    await page.waitForTimeout(20_000);
    await request(page, { 'f-action': 'failout', 'f-cluster': 'greetings-lor1', 'f-peers': 'greetings-lva1:2, greetings-ltx1', 'f-for': '2h', 'f-alarms': errorAlarmName('greetings-lva1'), 'f-reason': 'INC-4711 lor1 5xx after the 14:05 deploy', 'f-by': 'maya@example.com' });
    await request(page, { 'f-action': 'failout', 'f-cluster': 'hello-lor1', 'f-peers': 'hello-lva1', 'f-ramp': '20%:10m,60%:10m,100%', 'f-for': '4h', 'f-reason': 'CHG-2207 lor1 network maintenance', 'f-by': 'sam@example.com' });
    for (const id of ['f-cluster', 'f-peers', 'f-for', 'f-ramp', 'f-reason']) await page.fill(`#${id}`, '');
    await page.evaluate('window.scrollTo(0, 0); document.activeElement && document.activeElement.blur()');
    // Long enough for the chart to show the move whole and the health numbers to settle.
    await page.waitForTimeout(15_000);
    const shot = join(mkdtempSync(join(tmpdir(), 'failout-shot-')), 'console.png');
    // From the top to the end of the traffic chart: the cards of both services and the move.
    const bottom = await page.evaluate('Math.ceil(document.querySelector("#traffic").getBoundingClientRect().bottom + window.scrollY) + 16');
    await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Number(bottom) } });
    copyFileSync(shot, OUT);
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    await browser.close();
    await stack.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

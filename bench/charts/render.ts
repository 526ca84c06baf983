// Vega-Lite spec → SVG text, in Node without a canvas: vega's headless View with renderer 'none'
// renders to an SVG string (text measured by vega's estimate, no fonts needed).
import type { TopLevelSpec } from 'vega-lite' with { 'resolution-mode': 'import' };

/**
 * Renders `spec` to a standalone SVG document. vega and vega-lite are ESM-only, so they are loaded by
 * dynamic `import()`, which works under tsx and node (not inside jest's vm: the tests run this in a
 * child process). Text from the data is escaped by vega's SVG renderer.
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const warnings: string[] = [];
  // A warning from vega-lite means a spec it had to guess about: fail instead of drawing something else.
  const logger = vega.logger(vega.Warn, undefined, (_method, _level, args) => warnings.push(args.map(String).join(' ')));
  const compiled = vegaLite.compile(spec, { logger });
  if (warnings.length > 0) throw new Error(`vega-lite: ${warnings.join('; ')}`);
  const view = new vega.View(vega.parse(compiled.spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return `${svg}\n`;
  } finally {
    view.finalize();
  }
}

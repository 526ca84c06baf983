import { join } from 'node:path';
import { build } from 'esbuild';
import * as bridge from '../../lib/bridge';
import * as bridgeContract from '../../lib/bridge/contract';
import * as d2 from '../../lib/d2';
import * as d2Data from '../../lib/d2/data';

// Modules through their faces: a face that only needs a module's pure half must not load its runtime.
// What a face loads is what esbuild reaches from it (the runtime imports, type-only ones erased): the
// same set Node's require loads, and what a bundle that uses the face must resolve. eslint's
// no-restricted-imports keeps callers on the faces; this keeps the faces light.

const ROOT = join(__dirname, '..', '..');

/** The npm packages a file loads, transitively (scoped packages by scope). */
async function packagesLoadedBy(file: string): Promise<string[]> {
  const result = await build({
    entryPoints: [join(ROOT, file)],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'silent',
    absWorkingDir: ROOT,
  });
  const packages = new Set<string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const match = /node_modules\/(@[^/]+|[^/@][^/]*)\//.exec(input);
    if (match) packages.add(match[1]);
  }
  return [...packages].sort();
}

const LAMBDA_RUNTIME = ['@aws-lambda-powertools', '@middy', '@aws-sdk'];
const HTTP_AND_METRICS = ['undici', 'prom-client'];

describe('module faces', () => {
  it.each([
    ['lib/requests/index.ts', 'the requests domain (the CLI and the worker share it)', [...LAMBDA_RUNTIME, ...HTTP_AND_METRICS]],
    ['lib/cli/index.ts', 'the CLI', ['@aws-lambda-powertools', '@middy', ...HTTP_AND_METRICS]],
    ['lib/bridge/contract/index.ts', "the bridge's contract (the CDK app reads it at synth)", [...HTTP_AND_METRICS, 'node-zookeeper-client', 'pino']],
    ['lib/index.ts', 'the package root', [...LAMBDA_RUNTIME, 'commander']],
  ])('%s, %s, loads none of the runtime it does not use', async (face, _what, forbidden) => {
    // Act
    const loaded = await packagesLoadedBy(face);

    // Assess
    expect(loaded.filter((name) => forbidden.includes(name))).toEqual([]);
  });

  it.each([
    ['lib/d2/data/index.ts', []],
    ['lib/requests/schema-entry.ts', ['zod']],
    ['lib/zk/config/index.ts', []],
    ['lib/metrics/index.ts', []],
    // The alarm port and its HTTP reader (global fetch): what lib/requests builds on; CloudWatch is lib/alarms/cloudwatch.
    ['lib/alarms/index.ts', ['zod']],
  ])('%s loads exactly %j from npm', async (face, expected) => {
    // Act
    const loaded = await packagesLoadedBy(face);

    // Assess
    expect(loaded).toEqual(expected);
  });

  it.each([
    ['lib/d2', 'lib/d2/data', d2, d2Data],
    ['lib/bridge', 'lib/bridge/contract', bridge, bridgeContract],
  ])('%s re-exports every value of its pure sub-face %s, so either face can be used', (_face, _subFace, whole: object, part: object) => {
    // Act
    const missing = Object.entries(part).filter(([name, value]) => (whole as Record<string, unknown>)[name] !== value);

    // Assess
    expect(missing.map(([name]) => name)).toEqual([]);
  });
});

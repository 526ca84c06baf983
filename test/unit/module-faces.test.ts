import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import * as ts from 'typescript';
import * as bridge from '../../lib/bridge';
import * as bridgeContract from '../../lib/bridge/contract';

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
    ['lib/d2/schema/index.ts', []],
    ['lib/requests/schema-entry.ts', ['zod']],
    ['lib/zk/config/index.ts', []],
    ['lib/metrics/index.ts', []],
    // The alarm port and its HTTP reader (global fetch): what lib/requests builds on; CloudWatch is lib/alarms/cloudwatch.
    ['lib/alarms/index.ts', ['zod']],
    // Low modules below lib/requests and lib/safety: the schedule is pure; the Lambda adapter is middy
    // and Powertools only (`@aws` is Powertools' own @aws/lambda-invoke-store).
    ['lib/schedule/index.ts', []],
    ['lib/lambda/index.ts', ['@aws', '@aws-lambda-powertools', '@middy']],
    // The one lifecycle vocabulary, below every layer: a type, no runtime.
    ['lib/lifecycle/index.ts', []],
    // Fabrics (issue 23): the rule and the map's codec, pure; zod validates the map node.
    ['lib/fabrics/index.ts', ['zod']],
  ])('%s loads exactly %j from npm', async (face, expected) => {
    // Act
    const loaded = await packagesLoadedBy(face);

    // Assess
    expect(loaded).toEqual(expected);
  });

  // lib/d2 no longer re-exports all of lib/d2/data (the two would exceed a face's budget together): it
  // takes the documents' types, paths and codecs, and the format's finer rules stay on lib/d2/data.
  it.each([['lib/bridge', 'lib/bridge/contract', bridge, bridgeContract]])('%s re-exports every value of its pure sub-face %s, so either face can be used', (_face, _subFace, whole: object, part: object) => {
    // Act
    const missing = Object.entries(part).filter(([name, value]) => (whole as Record<string, unknown>)[name] !== value);

    // Assess
    expect(missing.map(([name]) => name)).toEqual([]);
  });
});

// Faces that say what a module is for (STYLE.md): a face exports what other modules and users need, and
// a module that needs more splits it into sub-faces (lib/xds/server, lib/xds/envoy-protos, lib/d2/data …).
const FACE_BUDGET = 60;

/** Every face: lib/<module>/index.ts, and the sub-faces other modules may import (eslint.config.mjs `SUB_FACES`). */
function allFaces(): string[] {
  const modules = readdirSync(join(ROOT, 'lib'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `lib/${entry.name}/index.ts`)
    .filter((face) => existsSync(join(ROOT, face)));
  const listed = /const SUB_FACES = \[([^\]]*)\]/.exec(readFileSync(join(ROOT, 'eslint.config.mjs'), 'utf8'));
  const subFaces = [...(listed?.[1] ?? '').matchAll(/'([^']+)'/g)].map((match) => `lib/${match[1]}/index.ts`);
  return [...modules, ...subFaces].sort();
}

/**
 * What each face exports, as the compiler resolves it: `export *` followed, types included (a type is
 * a name an importer can use as much as a value). Also the face file's own errors: a re-export that
 * does not resolve would hide names from the count.
 */
function exportsOf(faces: readonly string[]): { face: string; names: string[]; errors: string[] }[] {
  const program = ts.createProgram(
    faces.map((face) => join(ROOT, face)),
    { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, strict: true, skipLibCheck: true, noEmit: true, resolveJsonModule: true, esModuleInterop: true, types: ['node'] },
  );
  const checker = program.getTypeChecker();
  return faces.map((face) => {
    const file = program.getSourceFile(join(ROOT, face));
    const symbol = file && checker.getSymbolAtLocation(file);
    const errors = file ? program.getSemanticDiagnostics(file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')) : ['not found'];
    return { face, names: symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : [], errors };
  });
}

describe('face sizes', () => {
  it(`every face exports at most ${FACE_BUDGET} names`, () => {
    // Prepare
    const faces = allFaces();

    // Act
    const found = exportsOf(faces);

    // Assess
    expect(faces).toEqual(expect.arrayContaining(['lib/xds/index.ts', 'lib/d2/index.ts', 'lib/zk/index.ts', 'lib/xds/server/index.ts']));
    expect(found.filter((f) => f.errors.length > 0 || f.names.length === 0).map(({ face, errors }) => ({ face, errors }))).toEqual([]);
    expect(found.filter((f) => f.names.length > FACE_BUDGET).map((f) => `${f.face}: ${f.names.length} names`)).toEqual([]);
  }, 120_000);
});

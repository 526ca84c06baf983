/**
 * A Lambda function of this repository bundled the way the CDK app ships it (infra's NodejsFunction:
 * esbuild, minified, CommonJS, `@aws-sdk/*` left to the runtime), so that the local stack, the bundle
 * test and bench/lambda-bundle run the very artefact `cdk deploy` uploads, not the TypeScript sources.
 * The only difference is the target: node20, the runtime of this machine (Lambda runs node22).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';

const ROOT = join(__dirname, '..', '..');

/** The functions under `functions/` that have a Lambda handler. */
export type LambdaFunctionName = 'failout-requests' | 'failout-guard' | 'failout-drills';

/** The bundling options infra/lib/failout-requests-function.ts gives NodejsFunction (a test keeps them equal). */
export const LAMBDA_BUNDLING = Object.freeze({ minify: true, format: 'cjs' as const, external: Object.freeze(['@aws-sdk/*']) });

/** A built bundle. */
export interface FunctionBundle {
  /** Absolute path of the `.cjs` file; `require` it and call its `handler`. */
  readonly file: string;
  /** esbuild's metafile: inputs and their sizes. */
  readonly metafile: Metafile;
}

/**
 * Bundles `functions/<name>/handler.ts`. The file goes under `node_modules/.cache`, inside the
 * repository, so the external `@aws-sdk/*` packages resolve from node_modules as the runtime's would.
 */
export async function bundleFunction(name: LambdaFunctionName, outDir = join(ROOT, 'node_modules', '.cache', 'failout-functions')): Promise<FunctionBundle> {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${name}.cjs`);
  const result = await build({
    entryPoints: [join(ROOT, 'functions', name, 'handler.ts')],
    outfile: file,
    // Written below through a rename: another process (a parallel test, the local stack) may be
    // requiring the same file, and must never see it half written.
    write: false,
    bundle: true,
    minify: LAMBDA_BUNDLING.minify,
    platform: 'node',
    target: 'node20',
    format: LAMBDA_BUNDLING.format,
    external: [...LAMBDA_BUNDLING.external],
    metafile: true,
    logLevel: 'warning',
  });
  const output = result.outputFiles.find((f) => f.path === file);
  if (!output) throw new Error(`esbuild wrote no ${file}`);
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  writeFileSync(temp, output.contents);
  renameSync(temp, file);
  return { file, metafile: result.metafile };
}

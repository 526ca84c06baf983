// Types of scripts/build.cjs for the TypeScript that reads its bundle options (the packaging tests).
import type { BuildOptions } from 'esbuild';

/** Absolute path of the CLI bundle, dist/cli/failout.cjs (package.json "bin"). */
export declare const CLI_BUNDLE: string;
/** esbuild's options for the CLI bundle (without `write`). */
export declare const CLI_BUNDLE_OPTIONS: Readonly<BuildOptions & { entryPoints: string[]; outfile: string; external: string[] }>;
/** Packages the bundle leaves to require() at run time: each is a "dependencies" entry. */
export declare const CLI_EXTERNAL: readonly string[];

#!/usr/bin/env node
// package.json "bin" entry of `failout`: runs the TypeScript CLI through tsx's CommonJS hook, so
// `npx failout …` works in this repository without a build step. npm ships every "bin" file, but
// the CLI is not part of the package (its TypeScript sources and tsx are not installed with it):
// from an installed package, say so instead of failing on a missing module.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

if (!existsSync(join(__dirname, 'main.ts'))) {
  process.stderr.write('failout: the failout CLI runs from the failout repository (npx failout there); the package is the library only.\n');
  process.exit(1);
}
require('tsx/cjs/api').register();
require('./main.ts');

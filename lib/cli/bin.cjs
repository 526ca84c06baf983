#!/usr/bin/env node
// package.json "bin" entry of `failout`: runs the TypeScript CLI through tsx's CommonJS hook, so
// `npx failout …` works in this repository without a build step.
require('tsx/cjs/api').register();
require('./main.ts');

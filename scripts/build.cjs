#!/usr/bin/env node
// `npm run build`: the package's dist/. Cleans it, compiles the public entry points with
// tsconfig.build.json (CommonJS + .d.ts + source maps), then copies the envoy .proto files lib/xds
// loads at run time, and every file they import, from @grpc/grpc-js-xds (a devDependency) to
// dist/xds/protos/, where the built lib/xds/protos.js looks first. A consumer of `failout/xds` thus
// needs neither @grpc/grpc-js-xds nor its 19 MB of dependencies.
'use strict';

const { copyFileSync, existsSync, mkdirSync, rmSync } = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');

function compile() {
  rmSync(dist, { recursive: true, force: true });
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** Loads the files the way lib/xds does and returns [include dir, relative path] of every file read. */
function protoClosure(files, dirs) {
  const protobuf = require('protobufjs');
  // google/protobuf/descriptor.proto is built in too once registered, as @grpc/proto-loader does.
  protobuf.common('descriptor', require('protobufjs/google/protobuf/descriptor.json').nested.google.nested.protobuf.nested);
  const found = [];
  const rootNs = new protobuf.Root();
  rootNs.resolvePath = (_origin, target) => {
    for (const dir of dirs) {
      const candidate = path.join(dir, target);
      if (existsSync(candidate)) {
        found.push([dir, target]);
        return candidate;
      }
    }
    return target; // google/protobuf/* well-known types: built into protobufjs
  };
  rootNs.loadSync(files, { keepCase: true });
  return found;
}

function copyProtos() {
  const { SERVICE_FILES, RESOURCE_FILES, GRPC_JS_XDS_PROTO_DIRS, BUNDLED_PROTO_DIR } = require(path.join(dist, 'xds', 'proto-files.js'));
  const pkg = path.dirname(require.resolve('@grpc/grpc-js-xds/package.json', { paths: [root] }));
  const dirs = GRPC_JS_XDS_PROTO_DIRS.map((d) => path.join(pkg, 'deps', d));
  const target = path.join(dist, 'xds', BUNDLED_PROTO_DIR);
  const seen = new Set();
  for (const [dir, rel] of protoClosure([...SERVICE_FILES, ...RESOURCE_FILES], dirs)) {
    if (seen.has(rel)) continue;
    seen.add(rel);
    mkdirSync(path.dirname(path.join(target, rel)), { recursive: true });
    copyFileSync(path.join(dir, rel), path.join(target, rel));
  }
  process.stderr.write(`[build] copied ${seen.size} .proto files to ${path.relative(root, target)}\n`);
}

compile();
copyProtos();

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The published shape, not the source tree: `npm pack` (its `prepack` runs `npm run build`), the tarball installed into
// a fresh project (npm registry for the dependencies), a TypeScript file importing every subpath
// type-checked with node16 resolution (no skipLibCheck), a plain CommonJS script requiring every
// subpath and using each once, and an ES module importing them by name. No ZooKeeper needed; the
// integration project only hosts the long timeouts. Every temporary file goes in one folder, removed.

const repo = join(__dirname, '../../..');
const typescript = join(repo, 'node_modules/typescript/bin/tsc');
const repoPackage = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};

/** Packages only the Lambda, the CLI, the local stack or the CDK app use: never loaded by a consumer. */
const DEV_ONLY = ['@middy/', '@aws-lambda-powertools/', '@aws-sdk/', 'commander', '@grpc/grpc-js-xds', 'tsx', 'aws-cdk-lib'];

const consumerTs = `
import {
  FailoutClient, LoadBalancerState, WeightedFailoutRedirectStrategy, ZooKeeperAnnouncer,
  ZooKeeperFailoutConfigProviderFactory, buildD2Client, type BuiltD2Client, type D2ClientConfig,
} from 'failout';
import { createXdsClient, loadXdsProtos, type XdsClient } from 'failout/xds';
import { connectSession, type ZkSession } from 'failout/zk';
import { REJECTION_REASONS, decodeRequestRecord, parseChangeRequest, requestRecordPath, type ChangeRequest } from 'failout/requests';

export function wire(session: ZkSession): BuiltD2Client {
  const config: D2ClientConfig = {
    state: new LoadBalancerState({ session }),
    enableClusterFailout: true,
    failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
    failoutRedirectStrategy: (view) => new WeightedFailoutRedirectStrategy({ view }),
  };
  return buildD2Client(config);
}
export const used: unknown[] = [FailoutClient, ZooKeeperAnnouncer, createXdsClient, loadXdsProtos, connectSession, REJECTION_REASONS, requestRecordPath, decodeRequestRecord];
export type Used = [XdsClient, ChangeRequest];
const parsed = parseChangeRequest({ version: 1, requestId: 'r1', action: 'restore', cluster: 'greetings-lor1' }, { now: Date.now() });
if (parsed.ok) console.log(parsed.request.action);
`;

const consumerCjs = `
'use strict';
const root = require('failout');
const xds = require('failout/xds');
const zk = require('failout/zk');
const requests = require('failout/requests');
const any = xds.packAny('type.googleapis.com/envoy.config.cluster.v3.Cluster', { name: 'greetings-lor1' });
const parsed = requests.parseChangeRequest({ version: 1, requestId: 'r1', action: 'restore', cluster: 'greetings-lor1' }, { now: Date.now() });
let deep;
try { require('failout/dist/requests/index'); deep = 'loaded'; } catch (e) { deep = e.code; }
process.stdout.write(JSON.stringify({
  root: ['FailoutClient', 'buildD2Client', 'D2Client', 'LoadBalancerState', 'ZooKeeperAnnouncer'].filter((n) => typeof root[n] === 'function'),
  xds: typeof xds.createXdsClient,
  zk: typeof zk.connectSession,
  requestsExports: Object.keys(requests).sort(),
  cluster: xds.unpackAny(any).name,
  parsed: parsed.ok && parsed.request.action,
  deep,
  loaded: Object.keys(require.cache),
}));
`;

// CommonJS only, but ES modules import it with named exports (Node's CommonJS export detection).
const consumerMjs = `
import { FailoutClient, LoadBalancerState, ZooKeeperAnnouncer, buildD2Client } from 'failout';
import { createXdsClient } from 'failout/xds';
import { connectSession } from 'failout/zk';
import { parseChangeRequest } from 'failout/requests';
const names = { FailoutClient, LoadBalancerState, ZooKeeperAnnouncer, buildD2Client, createXdsClient, connectSession, parseChangeRequest };
process.stdout.write(JSON.stringify(Object.keys(names).filter((n) => typeof names[n] === 'function')));
`;

let temp: string;
let consumer: string;
let packedFiles: string[];

function run(cmd: string, args: string[], cwd: string): string {
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${result.status}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), 'failout-pack-'));
  // `npm pack` builds first (package.json `prepack`: dist/ and the CLI bundle), as `npm publish` does.
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', temp], repo)) as [{ filename: string; files: { path: string }[] }];
  packedFiles = packed.files.map((f) => f.path);
  consumer = join(temp, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, noEmit: true, types: ['node'] },
      files: ['consumer.ts', 'example-service.ts'],
    }),
  );
  writeFileSync(join(consumer, 'consumer.ts'), consumerTs);
  // The example a service team copies, against the package as installed (not the source tree).
  writeFileSync(join(consumer, 'example-service.ts'), readFileSync(join(repo, 'examples/service/server.ts'), 'utf8'));
  writeFileSync(join(consumer, 'consumer.cjs'), consumerCjs);
  writeFileSync(join(consumer, 'consumer.mjs'), consumerMjs);
  const typesNode = `@types/node@${repoPackage.devDependencies['@types/node']}`;
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(temp, packed.filename), typesNode], consumer);
}, 150_000);

afterAll(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
});

it('packs only the built library (envoy types compiled in, no .proto files), the CLI bundle, README and CHANGELOG', () => {
  const outside = packedFiles.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'CHANGELOG.md'].includes(f));
  expect(outside).toEqual([]);
  expect(packedFiles.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  expect(packedFiles).toEqual(expect.arrayContaining(['CHANGELOG.md', 'dist/index.d.ts', 'dist/xds/envoy-descriptor.js']));
  expect(packedFiles.filter((f) => f.endsWith('.proto'))).toEqual([]);
  expect(packedFiles.filter((f) => /^dist\/(local|bridge|xds\/server)\//.test(f) || f === 'dist/requests/index.js')).toEqual([]);
  // The CLI is one esbuild bundle (scripts/build.cjs) and the console's static files beside it.
  expect(packedFiles.filter((f) => f.startsWith('dist/cli/') && !f.startsWith('dist/cli/public/'))).toEqual(['dist/cli/failout.cjs']);
});

it('type-checks a TypeScript consumer importing every subpath, and examples/service/server.ts (node16 resolution, no skipLibCheck)', () => {
  expect(() => run(process.execPath, [typescript, '-p', consumer], consumer)).not.toThrow();
}, 60_000);

it('requires every subpath from plain JavaScript without loading any dev-only package', () => {
  const out = JSON.parse(run(process.execPath, ['consumer.cjs'], consumer)) as {
    root: string[];
    xds: string;
    zk: string;
    requestsExports: string[];
    cluster: string;
    parsed: string;
    deep: string;
    loaded: string[];
  };

  expect(out.root).toEqual(['FailoutClient', 'buildD2Client', 'D2Client', 'LoadBalancerState', 'ZooKeeperAnnouncer']);
  expect([out.xds, out.zk]).toEqual(['function', 'function']);
  expect(out.cluster).toBe('greetings-lor1'); // the envoy protos come from the package itself
  expect(out.parsed).toBe('restore');
  expect(out.requestsExports).toEqual(expect.arrayContaining(['changeRequestSchema', 'parseChangeRequest', 'REJECTION_REASONS', 'requestRecordPath', 'decodeRequestRecord']));
  expect(out.requestsExports).not.toContain('createHandler');
  expect(out.deep).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  const devOnly = out.loaded.filter((file) => DEV_ONLY.some((name) => file.includes(`/node_modules/${name}`)));
  expect(devOnly).toEqual([]);
  expect(out.loaded.some((file) => file.includes('/node_modules/failout/dist/xds/index.js'))).toBe(true);
});

it('imports every subpath from an ES module with named exports', () => {
  const names = JSON.parse(run(process.execPath, ['consumer.mjs'], consumer)) as string[];

  expect(names).toEqual(['FailoutClient', 'LoadBalancerState', 'ZooKeeperAnnouncer', 'buildD2Client', 'createXdsClient', 'connectSession', 'parseChangeRequest']);
});

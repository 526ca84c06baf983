/**
 * Issue 22: `npm ci` on Node 20 warned EBADENGINE (cookie 2 through fastify's light-my-request, and
 * vega-lite 6.5 for the bench charts), while package.json says Node >= 20.18.1. These checks fail on
 * the next such package, before anyone sees the warning: every installed package accepts the Node
 * running the tests (what npm checks), and everything an installed failout runs (its dependencies and
 * the packages bundled into the CLI) accepts the oldest Node that "engines" promises.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import fastify from 'fastify';
import { minVersion, satisfies, validRange } from 'semver';
import { CLI_BUNDLE_OPTIONS, CLI_EXTERNAL } from '../../../scripts/build.cjs';

const ROOT = join(__dirname, '../../..');

interface LockEntry {
  readonly version?: string;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly engines?: Record<string, string> | string[];
}
interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly engines?: { node?: string };
  readonly dependencies?: Record<string, string>;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const pkg = readJson<PackageJson>(join(ROOT, 'package.json'));
const lock = readJson<{ packages: Record<string, LockEntry> }>(join(ROOT, 'package-lock.json'));
const PROMISED = pkg.engines?.node ?? '*';
const OLDEST = minVersion(PROMISED)?.version ?? '0.0.0';

/** A package's own engines.node range, as npm reads it (an old array form means no constraint). */
const nodeRange = (engines: PackageJson['engines'] | LockEntry['engines']): string | undefined => (engines && !Array.isArray(engines) ? engines.node : undefined);
// npm-install-checks: satisfies(node, range, { includePrerelease: true }).
const accepts = (range: string, node: string): boolean => satisfies(node, range, { includePrerelease: true });

/** Every package of the lock file that this install has in node_modules, with its own package.json. */
function installed(): { path: string; name: string; version: string; node: string | undefined; dev: boolean }[] {
  return Object.entries(lock.packages)
    .filter(([path]) => path !== '' && existsSync(join(ROOT, path, 'package.json')))
    .map(([path, entry]) => {
      const own = readJson<PackageJson>(join(ROOT, path, 'package.json'));
      return { path, name: own.name, version: own.version, node: nodeRange(own.engines), dev: entry.dev === true };
    });
}

describe('engines: no package refuses the Node this project supports', () => {
  it('the promise is a Node 20 range, the same in package.json and package-lock.json', () => {
    // Assess
    expect(validRange(PROMISED)).not.toBeNull();
    expect(OLDEST.split('.')[0]).toBe('20');
    expect(nodeRange(lock.packages['']?.engines)).toBe(PROMISED);
  });

  it('every installed package accepts the running Node (npm ci prints no EBADENGINE)', () => {
    // Prepare
    const packages = installed();

    // Act
    const refusing = packages.filter((p) => p.node !== undefined && !accepts(p.node, process.version)).map((p) => `${p.path}@${p.version} wants node ${p.node}`);

    // Assess
    expect(packages.length).toBeGreaterThan(100);
    expect(refusing).toEqual([]);
  });

  it(`every package an installed failout loads (not dev-only) accepts the oldest promised Node, ${OLDEST}`, () => {
    // Act
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.dev !== true)
      .map(([path, entry]) => ({ path, version: entry.version, node: nodeRange(entry.engines) }))
      .filter((p) => p.node !== undefined && !accepts(p.node, OLDEST))
      .map((p) => `${p.path}@${p.version ?? '?'} wants node ${p.node}`);

    // Assess
    expect(refusing).toEqual([]);
  });

  it(`every package bundled into the CLI (dist/cli/failout.cjs) accepts ${OLDEST}, and what it leaves out is a dependency`, async () => {
    // Act: the bundle's inputs, as scripts/build.cjs bundles them
    const result = await build({ ...CLI_BUNDLE_OPTIONS, write: false, metafile: true });
    const folders = new Set(
      Object.keys(result.metafile.inputs)
        .map((file) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1])
        .filter((folder): folder is string => folder !== undefined),
    );
    const refusing = [...folders]
      .map((folder) => readJson<PackageJson>(join(ROOT, folder, 'package.json')))
      .filter((p) => p.engines?.node !== undefined && !accepts(p.engines.node, OLDEST))
      .map((p) => `${p.name}@${p.version} wants node ${p.engines?.node ?? ''}`);

    // Assess
    expect(folders.size).toBeGreaterThan(20);
    expect(refusing).toEqual([]);
    expect(CLI_EXTERNAL.filter((name) => pkg.dependencies?.[name] === undefined)).toEqual([]);
  }, 60_000);

  it("fastify's inject still works with the cookie the override gives light-my-request (cookie 1.x, Node 18+)", async () => {
    // Prepare
    const app = fastify();
    app.get('/', async (request) => ({ cookie: request.headers.cookie }));

    // Act
    const response = await app.inject({ method: 'GET', url: '/', cookies: { session: 'a b' } });
    await app.close();

    // Assess
    expect(response.json()).toEqual({ cookie: 'session=a%20b' });
    const lightMyRequest = dirname(require.resolve('light-my-request', { paths: [dirname(require.resolve('fastify'))] }));
    expect(readJson<PackageJson>(require.resolve('cookie/package.json', { paths: [lightMyRequest] })).version).toMatch(/^1\./);
  });
});

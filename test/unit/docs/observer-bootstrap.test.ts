import { join } from 'node:path';
import { parseBootstrap } from '../../../lib/xds';
import { readPage, sectionCodeLines } from '../../helpers/docs-markdown';
import { loadObserverConfig } from '../../../lib/observer';
import { run, type CliIo } from '../../../lib/cli';

// Issue 25: docs/observer.md shows the bootstrap services give buildD2Client({ discovery: { xds } }).
// The example is read from the page and parsed with lib/xds's own parser, so the page cannot show a
// bootstrap the client would refuse, nor lose the order (own fabric's observers first) it explains.

const PAGE = 'docs/observer.md';

/** The JSON block of the page's bootstrap section (the section also holds a TypeScript line). */
function documentedBootstrap(): string {
  const lines = sectionCodeLines(readPage(PAGE), 'The bootstrap services use');
  const start = lines.indexOf('{');
  const end = lines.lastIndexOf('}');
  expect(start).toBeGreaterThanOrEqual(0);
  return lines.slice(start, end + 1).join('\n');
}

describe('docs/observer.md', () => {
  it("documents a bootstrap lib/xds parses: the fabric's own observers first, another fabric's as fallback, with A71 fallback on and incremental ADS", () => {
    // Act
    const bootstrap = parseBootstrap(JSON.parse(documentedBootstrap()), {});

    // Assess
    expect(bootstrap.xdsServers.map((s) => s.serverUri)).toEqual(['d2-observers.lor1.internal:32123', 'd2-observers.lva1.internal:32123']);
    expect(bootstrap.xdsServers.map((s) => s.channelCreds.type)).toEqual(['insecure', 'insecure']);
    expect(bootstrap.xdsServers.map((s) => s.serverFeatures)).toEqual([['failout_delta_ads'], ['failout_delta_ads']]);
    expect(bootstrap.failout).toEqual({ fallback: true, fallbackProbeCapMs: 5000, resourceDoesNotExistTimeoutMs: 15000, fallbackWhenCached: true });
    expect(bootstrap.node).toMatchObject({ id: 'greetings-lor1-host-17', locality: { zone: 'lor1' } });
  });

  it("lists every variable the observer's configuration reads", () => {
    // Prepare: the variables named in lib/observer/config.ts's table.
    const page = readPage(PAGE);
    const config = readPage(join('lib', 'observer', 'config.ts'));
    const variables = [...new Set([...config.matchAll(/`((?:OBSERVER|D2|ZK)_[A-Z_]+)`/g)].map((m) => m[1]!))].filter((v) => v !== 'ZK_TLS_');

    // Assess
    expect(variables.length).toBeGreaterThan(8);
    for (const variable of variables) expect({ variable, documented: page.includes(`\`${variable}\``) }).toEqual({ variable, documented: true });
  });

  it('shows defaults the observer and the CLI really have', async () => {
    // Act
    const config = loadObserverConfig({ ZK_CONNECT: 'zk:2181' });
    let help = '';
    const io: CliIo = { stdout: (t) => void (help += t), stderr: () => undefined, env: {}, now: () => 0 };
    await run(['observer', '--help'], io);

    // Assess
    const page = readPage(PAGE);
    expect(page).toContain(`\`${config.grpc.host}\`, \`${config.grpc.port}\``);
    expect(page).toContain(`\`${config.admin.host}\`, \`${config.admin.port}\``);
    for (const flag of help.match(/--[a-z-]+/g) ?? []) if (flag !== '--help' && flag !== '--queue-url' && flag !== '--sqs-endpoint') expect({ flag, documented: page.includes(`\`${flag}\``) }).toEqual({ flag, documented: true });
  });
});

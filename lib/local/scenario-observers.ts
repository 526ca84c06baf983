/**
 * The scenario's observer step (issue 25, `--discovery xds` only): observer-1 (the clients' own
 * fabric's) is killed, a failout is written during the outage, and it reaches the clients through
 * observer-2; observer-1 comes back on its port and the clients return to it.
 *
 * What gRFC A71 makes of it (xds-fallback-a71.md §1.1–1.4), and so what the step checks:
 * - A client whose every watched resource is cached does NOT fall back when its server dies: it keeps
 *   its data (traffic never stops) and waits for the server. So the killed observer alone moves nobody.
 * - A client that needs a resource it has not cached falls back at once (lib/xds follows C-core/Java
 *   here) and subscribes to EVERY watched resource on observer-2, so it gets the failout too. Two
 *   such clients: a service instance that starts during the outage, and the running traffic
 *   generator looking up a service it has not called before.
 * - The first response from observer-1 after its restart makes it active again (probed every ≤ 1 s).
 */
import { buildD2Client, type BuiltD2Client } from '../failout';
import { createLogger } from '../logging';
import { createXdsClient, parseBootstrap, type XdsClient } from '../xds';
import { PEER_A, PEER_B, pct, sleep, TARGETS, type Step, type Steps } from './scenario-steps';
import { LOCAL_CLUSTER, SERVICE } from './topology';
import { serviceClientConfig, summarize } from './traffic';

/** A D2 service the traffic does not call (examples/service's; no node in the local stack): an uncached watch. */
const UNCALLED_SERVICE = 'profiles';

/** A service instance starting now: its own XdsClient over the stack's bootstrap, failout on. */
function startingInstance(s: Steps): { xds: XdsClient; client: BuiltD2Client } {
  const xds = createXdsClient({ bootstrap: parseBootstrap(s.stack.observers.bootstrap('failout-local-starting-instance')) });
  // Wired as the traffic's client; no warm-up: it only resolves.
  const client = buildD2Client({ ...serviceClientConfig(createLogger('starting-instance')), warmUp: false, discovery: { xds: { client: xds } } });
  return { xds, client };
}

const activeOf = (xds: XdsClient): string | undefined => xds.dump().authorities.find((a) => a.topLevel)?.activeServer;

/** Open ADS streams of observer `n`, read from its admin `/status` as an operator would. */
async function streamsOf(s: Steps, n: 1 | 2): Promise<number> {
  const status = (await (await fetch(`${s.stack.observers.adminUrl(n)}/status`)).json()) as { streams?: unknown };
  return typeof status.streams === 'number' ? status.streams : -1;
}

/** What the outage showed: the starting client, the running one, and the return. */
interface OutageOutcome {
  /** The client that started during the outage read from observer-2 and routed by the failout. */
  readonly instanceOk: boolean;
  /** From the running client's lookup of new data to its traffic fully failed out. */
  readonly moveMs: number;
  /** From observer-1's restart until both clients read from it. */
  readonly returnMs: number;
  /** Observer-1's open ADS streams (its `/status`) once both clients are back. */
  readonly streams: number;
}

/** With observer-1 down and the failout written: both clients on observer-2, then observer-1 back. */
async function fallBackAndReturn(s: Steps, sentAt: number): Promise<OutageOutcome> {
  const { observers, traffic } = s.stack;
  const [own, fallback] = [observers.address(1), observers.address(2)];
  const trafficOn = (): string | undefined => traffic.activeXdsServer();
  const instance = startingInstance(s);
  let lookup: Promise<unknown> | undefined;
  try {
    // A service instance starting during the outage: observer-1 refuses, so it starts on observer-2.
    const resolved = await instance.client.resolve(`d2://${SERVICE}/hello`, { routingKey: 'member-1' });
    const instanceOk = activeOf(instance.xds) === fallback && resolved.cluster !== LOCAL_CLUSTER;
    s.log(`  a client starting now reads from ${activeOf(instance.xds) ?? 'nobody'} and resolves ${SERVICE} to ${resolved.cluster}`);
    // The running client needs something uncached: it falls back and gets every resource from observer-2.
    // Not awaited: it settles once observer-2 says the service does not exist; the fallback is the point.
    const lookedUp = Date.now();
    lookup = traffic.state.listenToService(UNCALLED_SERVICE).catch(() => undefined);
    await s.until(() => trafficOn() === fallback, 'fallback of the traffic to observer-2');
    const moveMs = await s.timeToAll(lookedUp, (x) => x.cluster !== LOCAL_CLUSTER);
    s.log(`  the traffic's client looked up ${UNCALLED_SERVICE}: on observer-2, failout applied ${moveMs} ms later (${Date.now() - sentAt} ms after the request was sent)`);

    const restart = Date.now();
    await observers.startObserver(1);
    const returnMs = await s.until(() => trafficOn() === own && activeOf(instance.xds) === own, 'return of both clients to observer-1');
    const streams = await streamsOf(s, 1);
    s.log(`  observer-1 back on ${own}: both clients on it ${Date.now() - restart} ms after its start; its /status shows ${streams} streams`);
    return { instanceOk, moveMs, returnMs, streams };
  } finally {
    await instance.client.close();
    instance.xds.close();
    if (lookup) {
      await Promise.race([lookup, sleep(2000)]);
      traffic.state.stopListenToService(UNCALLED_SERVICE);
    }
  }
}

/** Kill observer-1, fail lor1 out during the outage, see it reach the clients through observer-2, restart, return. */
export const observerFallback: Step = async (s) => {
  const { stack } = s;
  const from = Date.now();
  await stack.observers.stopObserver(1);
  const cached = await s.measure(2000);
  const on = stack.traffic.activeXdsServer();
  s.log(`  observer-1 killed: ${cached.samples.length} requests in 2 s, ${pct(cached.share(LOCAL_CLUSTER))} on ${LOCAL_CLUSTER}, ${cached.errors} errors; the traffic's client ${on === stack.observers.address(1) ? 'keeps its cached data on observer-1 (A71)' : `reads from ${on ?? 'nobody'}`}`);

  const sentAt = Date.now();
  const out = await s.cli('out', LOCAL_CLUSTER, '--peer', `${PEER_A}:2`, '--peer', `${PEER_B}:1`, '--for', '30m', '--reason', 'scenario: observer-1 down', '--wait');
  // Whatever fails, observer-1 serves again for the next steps (a no-op once it is back).
  const { instanceOk, moveMs, returnMs, streams } = await fallBackAndReturn(s, sentAt).finally(() => stack.observers.startObserver(1));
  const restoredAt = Date.now();
  const restore = await s.cli('restore', LOCAL_CLUSTER, '--wait');
  const homeMs = await s.timeToAll(restoredAt, (x) => x.cluster === LOCAL_CLUSTER);
  const errors = summarize(s.samples(from)).errors;
  return {
    name: 'observer-1 killed, failout during the outage, back',
    expectation: `traffic keeps routing; the failout reaches clients through observer-2; clients back on observer-1 ≤ ${TARGETS.returnMs} ms after its restart; 0 errors`,
    measured: `traffic ${cached.samples.length > 0 && cached.errors === 0 ? 'kept routing' : 'STOPPED'} on cached data; starting client on observer-2 ${instanceOk ? 'and failed out' : 'NOT failed out'}; running client failed out through observer-2 ${moveMs} ms after needing new data; back on observer-1 in ${returnMs} ms (${streams} streams); home ${homeMs} ms after restore; ${errors} errors`,
    passed: out.code === 0 && restore.code === 0 && cached.samples.length > 0 && cached.share(LOCAL_CLUSTER) === 100 && instanceOk && returnMs <= TARGETS.returnMs && streams >= 2 && errors === 0,
  };
};

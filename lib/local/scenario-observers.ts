/**
 * The scenario's observer step (issue 25, `--discovery xds` only): observer-1 (the clients' own
 * fabric's) is killed, a failout is written during the outage, and it reaches the clients through
 * observer-2; observer-1 comes back on its port and the clients return to it.
 *
 * The stack's bootstrap sets `failout.fallbackWhenCached` (lib/xds; on by default for D2 discovery):
 * observers are replicas of one ZooKeeper view, so a client falls back as soon as its observer dies,
 * even with every resource cached, instead of waiting on a dead observer's cache as plain gRFC A71
 * would (and missing every failout written meanwhile). Traffic never stops either way: the cache
 * keeps serving while the client moves. The first response from observer-1 after its restart makes it
 * active again (probed every ≤ 1 s).
 */
import { buildD2Client, type BuiltD2Client } from '../failout';
import { createLogger } from '../logging';
import { createXdsClient, parseBootstrap, type XdsClient } from '../xds';
import { PEER_A, PEER_B, pct, TARGETS, type Step, type Steps } from './scenario-steps';
import { LOCAL_CLUSTER, SERVICE } from './topology';
import { serviceClientConfig, summarize } from './traffic';

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
  /** From observer-1's restart until both clients read from it. */
  readonly returnMs: number;
  /** Observer-1's open ADS streams (its `/status`) once both clients are back. */
  readonly streams: number;
}

/** With observer-1 down and the failout through: a client starting now, then observer-1 back. */
async function startAndReturn(s: Steps): Promise<OutageOutcome> {
  const { observers, traffic } = s.stack;
  const [own, fallback] = [observers.address(1), observers.address(2)];
  const instance = startingInstance(s);
  try {
    // A service instance starting during the outage: observer-1 refuses, so it starts on observer-2.
    const resolved = await instance.client.resolve(`d2://${SERVICE}/hello`, { routingKey: 'member-1' });
    const instanceOk = activeOf(instance.xds) === fallback && resolved.cluster !== LOCAL_CLUSTER;
    s.log(`  a client starting now reads from ${activeOf(instance.xds) ?? 'nobody'} and resolves ${SERVICE} to ${resolved.cluster}`);
    const restart = Date.now();
    await observers.startObserver(1);
    const returnMs = await s.until(() => traffic.activeXdsServer() === own && activeOf(instance.xds) === own, 'return of both clients to observer-1');
    const streams = await streamsOf(s, 1);
    s.log(`  observer-1 back on ${own}: both clients on it ${Date.now() - restart} ms after its start; its /status shows ${streams} streams`);
    return { instanceOk, returnMs, streams };
  } finally {
    await instance.client.close();
    instance.xds.close();
  }
}

/** Kill observer-1, fail lor1 out during the outage, see it reach the clients through observer-2, restart, return. */
export const observerFallback: Step = async (s) => {
  const { stack } = s;
  const from = Date.now();
  const killed = Date.now();
  await stack.observers.stopObserver(1);
  const fallbackMs = await s.until(() => stack.traffic.activeXdsServer() === stack.observers.address(2), 'fallback of the traffic to observer-2');
  const cached = await s.measure(2000);
  s.log(`  observer-1 killed: the traffic's client reads from observer-2 ${fallbackMs} ms later (${Date.now() - killed} ms); ${cached.samples.length} requests in 2 s, ${pct(cached.share(LOCAL_CLUSTER))} on ${LOCAL_CLUSTER}, ${cached.errors} errors`);

  const sentAt = Date.now();
  const out = await s.cli('out', LOCAL_CLUSTER, '--peer', `${PEER_A}:2`, '--peer', `${PEER_B}:1`, '--for', '30m', '--reason', 'scenario: observer-1 down', '--wait');
  const moveMs = await s.timeToAll(sentAt, (x) => x.cluster !== LOCAL_CLUSTER);
  s.log(`  failout during the outage: traffic off ${LOCAL_CLUSTER} ${moveMs} ms after the request was sent (through observer-2)`);
  // Whatever fails, observer-1 serves again for the next steps (a no-op once it is back).
  const { instanceOk, returnMs, streams } = await startAndReturn(s).finally(() => stack.observers.startObserver(1));
  const restoredAt = Date.now();
  const restore = await s.cli('restore', LOCAL_CLUSTER, '--wait');
  const homeMs = await s.timeToAll(restoredAt, (x) => x.cluster === LOCAL_CLUSTER);
  const errors = summarize(s.samples(from)).errors;
  return {
    name: 'observer-1 killed, failout during the outage, back',
    expectation: `clients move to observer-2 and traffic keeps routing; the failout reaches them through it; clients back on observer-1 ≤ ${TARGETS.returnMs} ms after its restart; 0 errors`,
    measured: `on observer-2 ${fallbackMs} ms after the kill, traffic ${cached.samples.length > 0 && cached.errors === 0 ? 'kept routing' : 'STOPPED'}; failed out through observer-2 ${moveMs} ms after send; starting client on observer-2 ${instanceOk ? 'and failed out' : 'NOT failed out'}; back on observer-1 in ${returnMs} ms (${streams} streams); home ${homeMs} ms after restore; ${errors} errors`,
    passed: out.code === 0 && restore.code === 0 && cached.samples.length > 0 && cached.share(LOCAL_CLUSTER) === 100 && instanceOk && returnMs <= TARGETS.returnMs && streams >= 2 && errors === 0,
  };
};

/**
 * Issue 21, item 9 "A model test": failouts judged together, as a fast-check command sequence over a
 * six-cluster, two-service topology (s1-a/b/c, s2-a/b/c, 1–4 hosts each). Operator failouts (peers of
 * the same service, shares, bucket ranges, ramps, future windows, stop alarms), forced ones, restores,
 * extends, two operators' failouts at once (two workers), drills coming due (putDrill, then the run's
 * failout as the runner sends it), alarms firing (the guard's restore, `stoppedByAlarm`, sometimes
 * delivered late) and the clock moving, in any order, all through the REAL `failout-requests` handler
 * over a RequestWriter with the model's clock, on the in-memory ZooKeeper (judged-together-world.ts says
 * why, and why FailoutClient is wired by hand). Steps: judged-together-steps.ts; invariants:
 * judged-together-invariants.ts, over the test's own routing rule (judged-together-oracle.ts).
 *
 * After every step:
 *  (a) the real FailoutClient routes 1,000 keys (every cluster's clients) by the rule: a key whose
 *      cluster is failed out for its bucket goes to an eligible peer when there is one (a peer, not
 *      failed out for that bucket, with hosts), else stays; a key of a serving cluster stays;
 *  (b) no cluster's load (own traffic that stays + what failed-out clusters send it, host-count basis)
 *      exceeds 2.0× unless a window that has not ended in its service carries a recorded `forced`;
 *  (c) every drill run has one status: each run id once per node, moving on only as outcomes may
 *      (running → passed | failed | interrupted | replaced; a late verdict turns passed into failed or
 *      interrupted), `running` exactly while its window moves traffic, and never dropped below the cap;
 *  (d) no failed-out bucket is left without an eligible peer unless a recorded force says so.
 * And per step: restores and alarms' restores are never refused; an applied failout's windows carry
 * exactly the `forced` its record says; an applied drill run is `running`, a refused one `skipped`.
 *
 * The sequences the model found broken are kept below as plain tests (the counterexamples).
 *
 * Reproduce a failure with the seed (and path) fast-check prints: MODEL_SEED=… MODEL_PATH=… npx jest <this file>.
 * MODEL_RUNS, MODEL_COMMANDS and MODEL_SIZE change the run count, the longest sequence and fast-check's
 * `size` (`MODEL_COMMANDS=40 MODEL_SIZE=large` explores sequences of about 20 steps).
 */
import fc from 'fast-check';
import { MINUTE, newModel, tally, verify } from '../../helpers/judged-together-invariants';
import { HOST_COUNTS, STEP } from '../../helpers/judged-together-steps';
import { CLUSTERS, createWorld, MODEL_START, type ModelClock } from '../../helpers/judged-together-world';

const RUNS = Number(process.env.MODEL_RUNS ?? 1000);
// About 5 steps a run on average: 1,000 runs stay near a minute on two shared cores.
const MAX_COMMANDS = Number(process.env.MODEL_COMMANDS ?? 10);
const SIZE = process.env.MODEL_SIZE as fc.SizeForArbitrary | undefined;
let requests = 0;

/** An operator's failout body of `cluster` to `peers` (name → weight), for two hours. */
function out(cluster: string, peers: Record<string, number>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const list = Object.entries(peers).map(([peer, weight]) => ({ cluster: peer, weight }));
  return { version: 1, requestId: `cx-${++requests}`, action: 'failout', cluster, peers: list, duration: 'PT2H', requestedBy: 'oncall@example.com', ...extra };
}

describe('failouts judged together, as a model', () => {
  // Counterexamples the model found, kept as plain request sequences (stable when the generators change).
  it.each<[string, Record<string, number>, (now: number) => Record<string, unknown>[], number]>([
    [
      // s1-c fails out from +5 m to both its peers; s1-a then fails out now to s1-b and s1-c. From +5 m each
      // sends everything to s1-b, the one peer left: (3 + 2 + 2) / 3 = 2.33×.
      '1: a failout judged with its traffic split among all its peers, while one of them is failed out by a window starting later',
      { 's1-a': 2, 's1-b': 3, 's1-c': 2 },
      (now) => [out('s1-c', { 's1-a': 1, 's1-b': 1 }, { offlineAt: now + 5 * MINUTE }), out('s1-a', { 's1-b': 1, 's1-c': 1 })],
      5,
    ],
    [
      // The same with a share: from +5 m s1-a's buckets 0–28 and s1-b's go to s1-c where s1-a is out, by 2:3
      // elsewhere: s1-c carries 1 + 0.29 + 0.29 + 0.71 × 3/5 = 2.01×.
      "1': the same when the later window covers only some buckets",
      { 's1-a': 1, 's1-b': 1, 's1-c': 1 },
      (now) => [out('s1-a', { 's1-b': 1, 's1-c': 1 }, { offlineAt: now + 5 * MINUTE, buckets: { from: 0, to: 28 } }), out('s1-b', { 's1-a': 2, 's1-c': 3 }, { offlineAt: now + 5 * MINUTE })],
      5,
    ],
    [
      // s1-b's forced failout strands s1-c's buckets 0–9 (recorded); s1-b's next failout, not forced, keeps
      // them stranded and replaces the only window that recorded the force.
      '2: a failout that replaces a forced one inherits the stranding it forced, with no force of its own',
      { 's1-a': 1, 's1-b': 1, 's1-c': 1 },
      () => [out('s1-c', { 's1-b': 1 }, { buckets: { from: 0, to: 9 } }), out('s1-b', { 's1-c': 1 }, { force: true }), out('s1-b', { 's1-a': 1 })],
      0,
    ],
  ])('counterexample %s', async (_name, hosts, requests, minutes) => {
    // Prepare
    const clock: ModelClock = { now: MODEL_START };
    const world = await createWorld(new Map(CLUSTERS.map((c) => [c, hosts[c] ?? 1])), clock);
    try {
      const model = newModel(clock);
      // Act
      for (const body of requests(clock.now)) await world.send(body);
      clock.now += minutes * MINUTE;
      // Assess: every invariant holds (the worker refuses what would break one, or a force is recorded).
      await expect(verify(model, world)).resolves.toBeDefined();
    } finally {
      await world.close();
    }
  });

  it(`keeps routing, load, stranding and drill runs sound over ${RUNS} random request sequences through the worker`, async () => {
    const started = Date.now();
    let steps = 0;
    const replay = process.env.MODEL_SEED === undefined ? {} : { seed: Number(process.env.MODEL_SEED), ...(process.env.MODEL_PATH ? { path: process.env.MODEL_PATH } : {}) };
    await fc.assert(
      fc.asyncProperty(HOST_COUNTS, fc.commands([STEP], { maxCommands: MAX_COMMANDS, ...(SIZE ? { size: SIZE } : {}) }), async (hosts, commands) => {
        const clock: ModelClock = { now: MODEL_START };
        const world = await createWorld(hosts, clock);
        try {
          const model = newModel(clock);
          await verify(model, world);
          await fc.asyncModelRun(() => ({ model, real: world }), commands);
          steps += [...commands].length;
        } finally {
          await world.close();
        }
      }),
      { numRuns: RUNS, ...replay },
    );
    // The run count, the time and what the runs reached, for the report.
    const seen = [...tally].sort(([a], [b]) => a.localeCompare(b)).map(([what, n]) => `  ${what}: ${n}`);
    process.stdout.write(`judged-together model: ${RUNS} runs, ${steps} steps, ${((Date.now() - started) / 1000).toFixed(1)} s\n${seen.join('\n')}\n`);
  }, 600_000);
});

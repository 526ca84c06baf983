/**
 * The fleet model test: the request worker's judgement when many clusters act at once, as fast-check
 * command sequences through the REAL `failout-requests` handler (createHandler over RequestWriter,
 * with the model's clock and a fake alarm source) on the real ZooKeeper. Three services in three
 * fabrics (svcA-lor1 … svcC-ltx1, 1–3 hosts each); operators' failouts (peers, shares, ramps, later
 * starts, stop alarms, now and then forced or invalid), restores, extends, ramp holds, resumes and
 * advances, stop-alarm amends, evacuations of a fabric and their restores, drills coming due (putDrill,
 * then the run as the drill runner sends it), alarms firing (the guard's restores), several requests of different clusters at once through two workers on two sessions,
 * redeliveries and the clock moving. Steps: test/helpers/fleet-model-steps.ts; after every step the
 * invariants of test/helpers/fleet-model-invariants.ts (records, stranding, capacity, the view,
 * evacuations' restores, duplicates).
 *
 * No fixed seed, as the repo's other fast-check tests: each run explores new sequences. Reproduce a
 * failure with the seed (and path) fast-check prints: FLEET_SEED=… FLEET_PATH=… npx jest <this file>.
 * FLEET_RUNS, FLEET_COMMANDS and FLEET_SIZE change the run count, the longest sequence and fast-check's
 * `size` (`FLEET_COMMANDS=40 FLEET_SIZE=large` explores sequences of about 20 steps).
 */
import fc from 'fast-check';
import { createFleetWorld, FLEET_START, fleetPaths } from '../../helpers/fleet-model-world';
import { fleetTally, newFleetModel } from '../../helpers/fleet-model-invariants';
import { FLEET_HOSTS, FLEET_STEP } from '../../helpers/fleet-model-steps';
import { closeSessions, openSession, uniqueBase } from '../../helpers/zk';
import type { ZkSession } from '../../../lib/zk';

const RUNS = Number(process.env.FLEET_RUNS ?? 40);
const MAX_COMMANDS = Number(process.env.FLEET_COMMANDS ?? 15);
const SIZE = process.env.FLEET_SIZE as fc.SizeForArbitrary | undefined;

describe('the request worker over a fleet of clusters acting at once, as a model (real ZooKeeper)', () => {
  let sessions: ZkSession[];

  beforeAll(async () => {
    sessions = [await openSession(), await openSession()];
  });

  afterAll(async () => {
    await closeSessions();
  });

  it(`keeps records, stranding, capacity, the view, evacuations and duplicates sound over ${RUNS} random request sequences`, async () => {
    const started = Date.now();
    let steps = 0;
    const replay = process.env.FLEET_SEED === undefined ? {} : { seed: Number(process.env.FLEET_SEED), ...(process.env.FLEET_PATH ? { path: process.env.FLEET_PATH } : {}) };
    await fc.assert(
      fc.asyncProperty(FLEET_HOSTS, fc.commands([FLEET_STEP], { maxCommands: MAX_COMMANDS, ...(SIZE ? { size: SIZE } : {}) }), async (hosts, commands) => {
        const world = await createFleetWorld(sessions, fleetPaths(uniqueBase('fleet')), hosts, { now: FLEET_START });
        const model = await newFleetModel(world);
        await fc.asyncModelRun(() => ({ model, real: world }), commands);
        steps += [...commands].length;
      }),
      { numRuns: RUNS, ...replay },
    );
    const seen = [...fleetTally].sort(([a], [b]) => a.localeCompare(b)).map(([what, n]) => `  ${what}: ${n}`);
    process.stdout.write(`fleet model (real ZooKeeper): ${RUNS} runs, ${steps} steps, ${((Date.now() - started) / 1000).toFixed(1)} s\n${seen.join('\n')}\n`);
  }, 600_000);
});

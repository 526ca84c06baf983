// What `npm start` does once the stack runs: the scripted scenario, or the live view and its keys.
import { formatResults, runScenario } from './scenario';
import type { CliRunner } from './scenario-steps';
import type { LocalStack } from './stack';
import { LOCAL_CLUSTER } from './topology';
import { summarize } from './traffic';
import { commandsText, LiveView } from './view';

const say = (line: string): void => void process.stdout.write(`${line}\n`);

/** Runs the scripted scenario (scenario.ts `STEPS`) and prints its table; 0 only if every step passed. */
export async function scenario(stack: LocalStack, cli: CliRunner): Promise<number> {
  const results = await runScenario(stack, say, cli);
  say('');
  formatResults(results).forEach(say);
  return results.every((r) => r.passed) ? 0 : 1;
}

/** Runs until Ctrl-C / q: the live view with keys on a terminal, else a traffic line every 5 s. */
export async function interactive(stack: LocalStack, view: boolean): Promise<void> {
  let quit!: () => void;
  const done = new Promise<void>((resolve) => (quit = resolve));
  process.once('SIGINT', quit);
  process.once('SIGTERM', quit);
  const stdin = process.stdin;
  if (!view || !stdin.isTTY) {
    commandsText(stack.env(), false, stack.console.url).forEach(say);
    say(`discovery: ${stack.discovery}; D2 observers: ${stack.observers.views().map((o) => `${o.name} ${o.address}`).join(', ')}`);
    const timer = setInterval(() => {
      // Each cluster's share of its own service's requests (every service's home cluster: 100 %).
      const samples = stack.traffic.allSamplesSince(Date.now() - 5000);
      const s = summarize(samples);
      const perService = new Map<string, number>();
      for (const x of samples) perService.set(x.service, (perService.get(x.service) ?? 0) + 1);
      const serviceOf = new Map(samples.map((x) => [x.cluster, x.service]));
      const shares = [...s.byCluster].map(([c, n]) => `${c} ${((100 * n) / (perService.get(serviceOf.get(c) ?? '') ?? s.total)).toFixed(0)}%`).join(', ');
      const on = stack.observerViews().find((o) => o.clientsOn)?.name;
      say(`traffic (5 s): ${s.total} requests, ${s.errors} errors; ${shares}; leader ${stack.leader()?.config.replicaId ?? 'none'}${on ? `; clients read from ${on}` : ''}`);
    }, 5000);
    await done;
    clearInterval(timer);
    return;
  }
  const live = new LiveView(stack.viewSource(), (text) => process.stdout.write(text));
  const act = (note: string, action: () => Promise<unknown>): void => {
    live.note = note;
    action().then(
      (result) => (live.note = `${note} done${typeof result === 'string' ? `: ${result}` : ''}`),
      (err: unknown) => (live.note = `${note} failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  };
  stdin.setRawMode(true);
  stdin.resume();
  stdin.on('data', (chunk: Buffer) => {
    const key = chunk.toString('utf8');
    // Raw mode turns Ctrl-C into a key.
    if (key === 'q' || key === '\u0003') quit();
    else if (key === 'k') act('killing the bridge leader…', () => stack.killLeader());
    else if (key === 'o') act(`${stack.observers.serving(1) ? 'killing' : 'starting'} observer-1…`, () => stack.toggleObserver(1));
    else if (key === 'e') act(`adding a backend to ${LOCAL_CLUSTER}…`, async () => (await stack.planes.addBackend(LOCAL_CLUSTER)).name);
    else if (key === 'p' && stack.planes.primaryServing) act('stopping the primary mid-rollout…', async () => stack.planes.stopPrimaryMidRollout());
    else if (key === 'p') act('starting the primary…', () => stack.planes.startPrimary());
    else if (key === 'b') {
      // The fault switch (issue 16): greetings-lva1's backends answer 500 until pressed again; its
      // alarm greetings-lva1-errors fires once traffic lands there (a failout with --stop-alarm).
      const on = !stack.topology.isFaulty('greetings-lva1');
      act(`${on ? 'breaking' : 'mending'} greetings-lva1…`, async () => stack.topology.setFault('greetings-lva1', on));
    }
  });
  live.start();
  await done;
  live.close();
  stdin.setRawMode(false);
  stdin.pause();
}


// `npm start`: thin shell over lib/local (options, the view's keys, Ctrl-C, exit code).
import { parseArgs } from 'node:util';
import { formatResults, runScenario } from './scenario';
import { LocalStack, type LocalStackOptions } from './stack';
import { LOCAL_CLUSTER } from './topology';
import { summarize } from './traffic';
import { commandsText, LiveView } from './view';

const HELP = `usage: npm start [-- options]

Runs the whole failout system on 127.0.0.1: ZooKeeper, a FIFO queue and its DLQ (fauxqs), two xDS
control planes (primary, fallback) serving service greetings (clusters greetings-lor1, -lva1, -ltx1,
three HTTP backends each), two xDS→ZooKeeper bridge replicas, the request worker (the real Lambda
handler behind a queue poller) and a traffic generator calling through FailoutClient. A live view
shows where the traffic goes; it prints the failout commands to try and the environment they need.
Ctrl-C (or q) stops everything.

options:
  --rate <n>            requests per second of the traffic generator (default 50)
  --zk-port <port>      ZooKeeper client port (default: a free one)
  --sqs-port <port>     local SQS port (default: a free one)
  --primary-port <port> primary xDS control plane port (default: a free one)
  --fallback-port <port> fallback xDS control plane port (default: a free one)
  --no-view             no live view: JSON logs on stderr and a traffic line every 5 s
  --scenario            run the scripted six-step scenario, print a pass/fail table, exit 0 only if all pass
  --help                this text

keys in the live view:
  p  stop the primary control plane mid-rollout (the bridge falls back) / start it again
  e  add a backend to greetings-lor1 (published on the control planes that serve)
  k  kill the bridge leader (the standby takes over; a fresh standby starts)
  q  quit
`;

interface Options extends LocalStackOptions {
  view: boolean;
  scenario: boolean;
}

function parse(argv: string[]): Options | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      rate: { type: 'string' },
      'zk-port': { type: 'string' },
      'sqs-port': { type: 'string' },
      'primary-port': { type: 'string' },
      'fallback-port': { type: 'string' },
      'no-view': { type: 'boolean', default: false },
      scenario: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  const int = (name: string, text: string | undefined, min: number, max: number): number | undefined => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer from ${min} to ${max}, got ${text}`);
    return n;
  };
  return {
    rate: int('rate', values.rate, 1, 5000),
    zkPort: int('zk-port', values['zk-port'], 1, 65535),
    sqsPort: int('sqs-port', values['sqs-port'], 1, 65535),
    primaryPort: int('primary-port', values['primary-port'], 1, 65535),
    fallbackPort: int('fallback-port', values['fallback-port'], 1, 65535),
    view: !values['no-view'],
    scenario: values.scenario,
  };
}

const say = (line: string): void => void process.stdout.write(`${line}\n`);

async function scenario(stack: LocalStack): Promise<number> {
  const results = await runScenario(stack, say);
  say('');
  formatResults(results).forEach(say);
  return results.every((r) => r.passed) ? 0 : 1;
}

/** Runs until Ctrl-C / q: the live view with keys on a terminal, else a traffic line every 5 s. */
async function interactive(stack: LocalStack, view: boolean): Promise<void> {
  let quit!: () => void;
  const done = new Promise<void>((resolve) => (quit = resolve));
  process.once('SIGINT', quit);
  process.once('SIGTERM', quit);
  const stdin = process.stdin;
  if (!view || !stdin.isTTY) {
    commandsText(stack.env(), false).forEach(say);
    const timer = setInterval(() => {
      const s = summarize(stack.traffic.samplesSince(Date.now() - 5000));
      const shares = [...s.byCluster].map(([c, n]) => `${c} ${((100 * n) / s.total).toFixed(0)}%`).join(', ');
      say(`traffic (5 s): ${s.total} requests, ${s.errors} errors; ${shares}; leader ${stack.leader()?.config.replicaId ?? 'none'}`);
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
    else if (key === 'e') act(`adding a backend to ${LOCAL_CLUSTER}…`, async () => (await stack.planes.addBackend(LOCAL_CLUSTER)).name);
    else if (key === 'p' && stack.planes.primaryServing) act('stopping the primary mid-rollout…', async () => stack.planes.stopPrimaryMidRollout());
    else if (key === 'p') act('starting the primary…', () => stack.planes.startPrimary());
  });
  live.start();
  await done;
  live.stop();
  stdin.setRawMode(false);
  stdin.pause();
}

async function main(): Promise<number> {
  let options;
  try {
    options = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n\n${HELP}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  // The view and the scenario table are the output: components log errors only, unless asked.
  process.env.FAILOUT_LOG_LEVEL ??= options.view || options.scenario ? 'error' : 'info';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const stack = await LocalStack.start({ ...options, progress: say });
  let code = 0;
  try {
    if (options.scenario) code = await scenario(stack);
    else await interactive(stack, options.view);
  } finally {
    say('stopping everything…');
    // A second Ctrl-C, or a stop that hangs, ends the process; the exit hooks kill the child processes.
    process.once('SIGINT', () => process.exit(130));
    const force = setTimeout(() => process.exit(code || 1), 15_000);
    await stack.stop();
    clearTimeout(force);
    say('stopped.');
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

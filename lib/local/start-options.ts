// The options of `npm start` (functions/local-stack/main.ts): parsing and the help text.
import { parseArgs } from 'node:util';
import type { LocalStackOptions } from './stack';

/** `npm start -- --help`. */
export const HELP = `usage: npm start [-- options]

Runs the whole failout system on 127.0.0.1: ZooKeeper, a FIFO queue and its DLQ (fauxqs), two xDS
control planes (primary, fallback) serving two services in three fabrics (greetings: clusters
greetings-lor1, -lva1, -ltx1; hello: hello-lor1, -lva1, -ltx1; three HTTP backends each), two
xDS→ZooKeeper bridge replicas, the request worker (the real Lambda handler behind a queue poller) and
a traffic generator calling both services through FailoutClient. A live view shows where the traffic
goes (per cluster and per fabric); it prints the failout commands to try and the environment they
need. Two D2 observers serve the D2 data from ZooKeeper over xDS; with --discovery xds the traffic
reads it through them (observer-1 first, observer-2 as the fallback). Ctrl-C (or q) stops everything.

options:
  --rate <n>            requests per second of the traffic generator, to each service (default 50)
  --zk-port <port>      ZooKeeper client port (default: a free one)
  --sqs-port <port>     local SQS port (default: a free one)
  --primary-port <port> primary xDS control plane port (default: a free one)
  --fallback-port <port> fallback xDS control plane port (default: a free one)
  --discovery <mode>    where the traffic's D2 clients read discovery data: zookeeper (default) or
                        xds (through the two local D2 observers, with A71 fallback)
  --no-view             no live view: JSON logs on stderr and a traffic line every 5 s
  --scenario            run the scripted scenario (13 steps; 14 with --discovery xds), print a pass/fail
                        table, exit 0 only if all pass
  --help                this text

keys in the live view:
  p  stop the primary control plane mid-rollout (the bridge falls back) / start it again
  e  add a backend to greetings-lor1 (published on the control planes that serve)
  k  kill the bridge leader (the standby takes over; a fresh standby starts)
  o  kill D2 observer-1 / start it again on its port (with --discovery xds: clients fall back to
     observer-2 when they need data observer-1 cannot give, and return once it is back)
  b  break greetings-lva1 (its backends answer 500, so its alarm greetings-lva1-errors fires once
     traffic lands there) / mend it
  q  quit (or Ctrl-C)
`;

/** What `npm start` was asked to do. */
export interface StartOptions extends LocalStackOptions {
  view: boolean;
  scenario: boolean;
}

/** Parses `npm start` arguments; throws an Error naming the bad option. */
export function parseStartOptions(argv: string[]): StartOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      rate: { type: 'string' },
      'zk-port': { type: 'string' },
      'sqs-port': { type: 'string' },
      'primary-port': { type: 'string' },
      'fallback-port': { type: 'string' },
      discovery: { type: 'string' },
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
  const discovery = values.discovery;
  if (discovery !== undefined && discovery !== 'zookeeper' && discovery !== 'xds') throw new Error(`--discovery must be zookeeper or xds, got ${discovery}`);
  return {
    discovery,
    rate: int('rate', values.rate, 1, 5000),
    zkPort: int('zk-port', values['zk-port'], 1, 65535),
    sqsPort: int('sqs-port', values['sqs-port'], 1, 65535),
    primaryPort: int('primary-port', values['primary-port'], 1, 65535),
    fallbackPort: int('fallback-port', values['fallback-port'], 1, 65535),
    view: !values['no-view'],
    scenario: values.scenario,
  };
}


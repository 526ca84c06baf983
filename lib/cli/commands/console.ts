import { Command } from 'commander';
import { EXIT } from '../errors';
import type { CommandRuntime } from '../command-context';
import { addConnectionOptions } from '../command-context';
import type { ConsoleFlags } from '../console-launcher';
import { DEFAULT_CONSOLE_PORT, inputError } from '../../operator';

const EXAMPLES = `
Examples:
  failout console                                   http://127.0.0.1:8300/ with $ZK_CONNECT and $FAILOUT_QUEUE_URL
  failout console --bridge-admin http://127.0.0.1:9901 --metrics greetings=http://127.0.0.1:9464/metrics
  failout console --cloudwatch-alarms               stop alarms' states from CloudWatch (your AWS credentials)
  ssh -L 8300:127.0.0.1:8300 bastion 'failout console'   then open http://127.0.0.1:8300/ here
  FAILOUT_CONSOLE_TOKEN=$(openssl rand -hex 24) failout console --listen 0.0.0.0

Environment: ZK_CONNECT, FAILOUT_QUEUE_URL, SQS_ENDPOINT (as every command), FAILOUT_BRIDGE_ADMIN_URLS
(comma-separated), FAILOUT_BRIDGE_ADMIN_TOKEN, FAILOUT_METRICS_URLS (service=url, comma-separated),
FAILOUT_TRAFFIC_METRIC, FAILOUT_CONSOLE_PORT, FAILOUT_CONSOLE_LISTEN, FAILOUT_CONSOLE_TOKEN,
FAILOUT_ALARMS_URL (alarm states over HTTP), FAILOUT_CONSOLE_CLOUDWATCH=1 (alarm states from CloudWatch).
`;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `failout console`: the operator's web console on 127.0.0.1 until Ctrl-C. */
export function consoleCommand(rt: CommandRuntime): Command {
  const launch = rt.console;
  const command = new Command('console')
    .description('serve the web console: clusters, traffic per target cluster, act, history, control planes (127.0.0.1 by default)')
    .option('--port <port>', `port to listen on (default $FAILOUT_CONSOLE_PORT or ${DEFAULT_CONSOLE_PORT}; 0 picks a free one)`)
    .option('--listen <address>', 'address to listen on (default $FAILOUT_CONSOLE_LISTEN or 127.0.0.1); anything but loopback needs a token')
    .option('--token <token>', 'access token, at least 32 characters (default $FAILOUT_CONSOLE_TOKEN; prefer the variable: flags show in ps)')
    .option('--bridge-admin <url>', "a bridge replica's admin URL (repeat; default $FAILOUT_BRIDGE_ADMIN_URLS)", collect)
    .option('--bridge-token <token>', "the bridges' admin bearer token (default $FAILOUT_BRIDGE_ADMIN_TOKEN)")
    .option('--metrics <service=url>', "a service instance's Prometheus text URL (repeat; default $FAILOUT_METRICS_URLS)", collect)
    .option('--traffic-metric <name>', 'a counter of every request by target cluster (label cluster) that services export (default $FAILOUT_TRAFFIC_METRIC)')
    .option('--alarms-url <url>', 'read the stop alarms\' states over HTTP: {"alarms":[{"name","state"}]} (default $FAILOUT_ALARMS_URL)')
    .option('--cloudwatch-alarms', 'read the stop alarms\' states from CloudWatch DescribeAlarms with your AWS credentials (or FAILOUT_CONSOLE_CLOUDWATCH=1)');
  addConnectionOptions(command).addHelpText('after', EXAMPLES);
  return command.action(async (flags: ConsoleFlags) => {
    if (launch === undefined) throw inputError('this build of failout has no console');
    const server = await launch(flags, rt.io.env);
    rt.io.stdout(`failout console: ${server.url}  (Ctrl-C stops it)\n${server.alarmsLine}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    rt.setExit(EXIT.ok);
  });
}

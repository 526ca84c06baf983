import { Command } from 'commander';
import { newRequestId } from '../../requests';
import { addConnectionOptions, withConnections, type CommandRuntime } from '../command-context';
import { addSendOptions, sendRequest, type SendOptions } from './send';
import { adjust, defaultRequester, validateLocally, type ConnectionFlags } from '../../operator';
import { judgeBeforeSend } from '../judge-before-send';
import { answeredFromRecord } from '../recorded-already';

/**
 * `failout ramp hold|resume|advance <cluster>` (issue 24): steer a running ramp. Each is one change
 * request on the cluster's FIFO group, checked with the worker's schema and judge before it is sent,
 * as `failout extend` is.
 */

const EXAMPLES = `
Examples:
  failout ramp hold greetings-lor1 --reason "INC-4711 errors at 20%" --wait
  failout ramp resume greetings-lor1 --wait      the held steps again, each as far from now as it was from the hold
  failout ramp advance greetings-lor1            the next step starts now (on a held ramp: the next held step)
`;

const DESCRIPTIONS: Readonly<Record<adjust.RampCommand, string>> = {
  hold: "keep a ramp's current share: its steps not started yet stop being scheduled until resume, advance or the failout's end",
  resume: 'schedule the held steps again, shifted by the time they were held (never past the end of the failout)',
  advance: 'start the next step of a ramp now (on a held ramp: the next held step; the rest stay held)',
};

type Flags = SendOptions & ConnectionFlags & { reason?: string; by?: string; force?: boolean; requestId?: string };

function wired(rt: CommandRuntime, command: Command): Command {
  return command
    .exitOverride()
    .showHelpAfterError('(add --help for usage and examples)')
    .configureOutput({ writeOut: (text) => rt.io.stdout(text), writeErr: (text) => rt.io.stderr(text) });
}

function stepCommand(rt: CommandRuntime, word: adjust.RampCommand): Command {
  const command = new Command(word)
    .description(DESCRIPTIONS[word])
    .argument('<cluster>', 'the D2 cluster whose failout ramps')
    .option('--reason <text>', 'why, recorded with the request')
    .option('--by <who>', 'who asks (default: $FAILOUT_USER or user@host)')
    .option('--force', 'override the peer-state checks, the capacity guard and the stranding check (recorded with the request)');
  addConnectionOptions(addSendOptions(command));
  return command.action(async (cluster: string, flags: Flags) => {
    const now = rt.io.now();
    const body = adjust.buildRampBody(word, cluster, flags, { requestId: flags.requestId ?? newRequestId(now), requestedBy: defaultRequester(rt.io.env) });
    // As for `extend`: the worker's rules first (exit 2), then its judgement when ZooKeeper is configured.
    const request = validateLocally(body, now, rt.io.env);
    await withConnections(flags, rt.io, async (connections, settings) => {
      if (await answeredFromRecord(rt, connections, settings, { body, givenId: flags.requestId, json: flags.json })) return;
      if (!(await judgeBeforeSend(rt, connections, settings, { body, request, json: flags.json }, now))) return;
      return sendRequest(rt, connections, settings, body, flags);
    });
  });
}

/** `failout ramp hold|resume|advance <cluster>`. */
export function rampCommand(rt: CommandRuntime): Command {
  const ramp = new Command('ramp').description("steer a running failout's ramp: hold it at its current share, resume it, or start its next step now").addHelpText('after', EXAMPLES);
  for (const word of Object.keys(adjust.RAMP_COMMANDS) as adjust.RampCommand[]) ramp.addCommand(wired(rt, stepCommand(rt, word)));
  return ramp;
}

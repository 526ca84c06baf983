// `npm start`: thin shell over lib/local (options, Ctrl-C, exit code); the scenario drives lib/cli's `run`.
import { run } from '../../lib/cli';
import { HELP, interactive, LocalStack, parseStartOptions, scenario } from '../../lib/local';

const say = (line: string): void => void process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  let options;
  try {
    options = parseStartOptions(process.argv.slice(2));
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
    if (options.scenario) code = await scenario(stack, (argv, io) => run(argv, io));
    else await interactive(stack, options.view);
  } finally {
    say('stopping everything…');
    // A second Ctrl-C, or a stop that hangs, ends the process; the exit hooks kill the child processes.
    process.once('SIGINT', () => process.exit(130));
    const force = setTimeout(() => process.exit(code || 1), 15_000);
    await stack.close();
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

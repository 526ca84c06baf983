import { run, type CliIo } from '../../../lib/cli';
import { readPage, sectionCodeLines } from '../../helpers/docs-markdown';

// Issue 22: the operators' page documents every command of the `failout` CLI. Its "Command
// reference" holds each command's usage line exactly as `--help` prints it. The commands are read
// from the CLI itself (`failout --help` and each group's `--help`, their "Commands:" sections), so a
// new command or a changed usage line fails here until the page says so.

/** What `failout <argv> --help` prints on standard output, run in-process; the exit code must be 0. */
async function helpOf(argv: readonly string[]): Promise<string> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), env: {}, now: () => Date.now() };
  const code = await run([...argv, '--help'], io);
  if (code !== 0) throw new Error(`failout ${[...argv, '--help'].join(' ')} exited ${code}: ${stderr}`);
  return stdout;
}

/** The first line starting with `Usage:`. */
function usageLine(help: string): string | undefined {
  return help.split('\n').find((line) => line.startsWith('Usage:'));
}

/** The command names a help text lists under "Commands:" (commander's own `help` left out). */
function subcommands(help: string): string[] {
  const lines = help.split('\n');
  const start = lines.findIndex((line) => line.trim() === 'Commands:');
  if (start < 0) return [];
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    // An entry starts two spaces in; its description's wrapped lines are indented further.
    const name = /^ {2}([a-z][\w-]*)/.exec(line)?.[1];
    if (name !== undefined && name !== 'help') names.push(name);
  }
  return names;
}

/** The description commander prints after the usage line: the help's lines up to its first blank one after `Usage:`. */
function descriptionOf(help: string): string {
  const lines = help.split('\n');
  const usage = lines.findIndex((line) => line.startsWith('Usage:'));
  const text: string[] = [];
  for (const line of lines.slice(usage + 2)) {
    if (line.trim() === '') break;
    text.push(line.trim());
  }
  return text.join(' ');
}

/** One command of the CLI: the words after `failout`, its usage line and its description. */
interface Command {
  readonly path: readonly string[];
  readonly usage: string | undefined;
  readonly description: string;
}

/** Every command and subcommand, depth first, from `failout --help` down. */
async function allCommands(path: readonly string[] = []): Promise<Command[]> {
  const help = await helpOf(path);
  const below = await Promise.all(subcommands(help).map((name) => allCommands([...path, name])));
  return [{ path, usage: usageLine(help), description: descriptionOf(help) }, ...below.flat()];
}

/** The Command reference's table rows: `| \`failout …\` | what it does |` → command → text. */
function referenceTable(markdown: string): Map<string, string> {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line === '### Command reference');
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,3} /.test(line)) break;
    const row = /^\| `(failout[^`]*)` \| (.*) \|$/.exec(line);
    if (row) rows.set(row[1]!, row[2]!);
  }
  return rows;
}

describe('the operators page documents every CLI command', () => {
  let commands: Command[] = [];
  let reference: string[] = [];

  beforeAll(async () => {
    commands = await allCommands();
    reference = sectionCodeLines(readPage('docs/operators.md'), 'Command reference').map((line) => line.trimEnd());
  }, 60_000);

  it('finds the commands and their groups through --help', () => {
    const names = commands.map((command) => command.path.join(' '));

    expect(names).toEqual(expect.arrayContaining(['', 'out', 'extend', 'restore', 'status', 'request', 'console', 'zk', 'zk check', 'zk secure', 'drill', 'drill put', 'drill run-now']));
    expect(commands.every((command) => command.usage !== undefined)).toBe(true);
  });

  it('has a "Command reference" code block on the page', () => {
    expect(reference.length).toBeGreaterThan(0);
  });

  it("holds every command's usage line verbatim in the Command reference", () => {
    const missing = commands.filter((command) => !reference.includes(command.usage ?? '')).map((command) => `failout ${command.path.join(' ')}: ${command.usage}`);

    expect(missing).toEqual([]);
  });

  it("has a row for every command in the Command reference's table, saying what its --help says", () => {
    const table = referenceTable(readPage('docs/operators.md'));
    const wrong = commands
      .map((command) => ['failout', ...command.path].join(' '))
      .map((name, i) => ({ name, documented: table.get(name), help: commands[i]!.description }))
      .filter((row) => row.documented?.startsWith(row.help.replace(/\.$/, '')) !== true);

    expect(wrong).toEqual([]);
  });

  it('lists no usage line of a command the CLI does not have', () => {
    const usages = new Set(commands.map((command) => command.usage));
    const stale = reference.filter((line) => line.startsWith('Usage:') && !usages.has(line));

    expect(stale).toEqual([]);
  });
});

/**
 * Issue 22: `failout completion bash|zsh` prints a script generated from commander's command tree
 * (commands, subcommands, options, choices), so a command added to the program completes without a
 * hand-kept list. bash runs the script here (syntax and what it completes); zsh when the machine has it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { completionScript, completionTree } from '../../../lib/cli/commands/completion';
import { buildProgram, run } from '../../../lib/cli/program';
import type { CliIo } from '../../../lib/cli/io';

const VERSION = (JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string }).version;
const HAS_ZSH = spawnSync('sh', ['-c', 'command -v zsh']).status === 0;

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, now: () => Date.now() };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

/** The program's visible top-level command names, as `failout --help` lists them. */
function topLevelCommands(): string[] {
  const program = buildProgram({ io: { stdout: () => undefined, stderr: () => undefined, env: {}, now: () => 0 }, setExit: () => undefined });
  const own = new Set(program.commands);
  return program.createHelp().visibleCommands(program).filter((c) => own.has(c)).map((c) => c.name());
}

/** Sources a bash script and completes `words` (the last one is the word under the cursor). */
function bashComplete(script: string, words: readonly string[]): string[] {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const program = `${script}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _failout_completion; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`bash exited ${result.status}: ${result.stderr}`);
  return result.stdout.split('\n').filter((l) => l !== '');
}

/** A small program with what the real one may grow: an alias, an option with choices, a nested command. */
function sampleProgram(): Command {
  const program = new Command('failout').version('9.9.9', '-V, --version');
  program.command('out').alias('o').addOption(new Option('--output <format>', 'how to print').choices(['json', 'table'])).option('--for <duration>', 'how long');
  const zk = program.command('zk');
  zk.command('check').option('--json', 'machine-readable');
  program.command('secret', { hidden: true });
  return program;
}

describe('failout completion bash', () => {
  it('names every top-level command and is valid bash (bash -n)', async () => {
    // Prepare
    const commands = topLevelCommands();

    // Act
    const { code, stdout } = await cli('completion', 'bash');

    // Assess
    expect(code).toBe(0);
    expect(commands).toEqual(expect.arrayContaining(['out', 'restore', 'status', 'console', 'completion']));
    for (const command of commands) expect(stdout).toContain(`'failout ${command}')`);
    const syntax = spawnSync('bash', ['-n'], { input: stdout, encoding: 'utf8' });
    expect({ status: syntax.status, stderr: syntax.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('completes commands, subcommands, options and argument choices from the real program', async () => {
    // Prepare
    const { stdout: script } = await cli('completion', 'bash');

    // Act
    const top = bashComplete(script, ['failout', '']);
    const drill = bashComplete(script, ['failout', 'drill', '']);
    const outOptions = bashComplete(script, ['failout', 'out', 'greetings-lor1', '--f']);
    const afterValuedOption = bashComplete(script, ['failout', 'out', 'greetings-lor1', '--for', '']);
    const shells = bashComplete(script, ['failout', 'completion', '']);
    const helpTopic = bashComplete(script, ['failout', 'help', 'dr']);

    // Assess
    expect(top.sort()).toEqual([...topLevelCommands(), 'help'].sort());
    expect(drill).toEqual(expect.arrayContaining(['put', 'list', 'run-now', 'history', 'delete']));
    expect(outOptions.sort()).toEqual(['--for', '--force']);
    expect(afterValuedOption).toEqual([]);
    expect(shells).toEqual(['bash', 'zsh']);
    expect(helpTopic).toEqual(['drill']);
  });

  it('completes the ramp words and the amend flags (issue 24)', async () => {
    // Prepare
    const { stdout: script } = await cli('completion', 'bash');

    // Act
    const ramp = bashComplete(script, ['failout', 'ramp', '']);
    const amend = bashComplete(script, ['failout', 'amend', 'greetings-lor1', '--re']);
    const hold = bashComplete(script, ['failout', 'ramp', 'hold', 'greetings-lor1', '--w']);

    // Assess
    expect(topLevelCommands()).toEqual(expect.arrayContaining(['ramp', 'amend']));
    expect(ramp).toEqual(expect.arrayContaining(['hold', 'resume', 'advance']));
    expect(amend).toEqual(expect.arrayContaining(['--remove-stop-alarm', '--reason']));
    expect(hold).toEqual(['--wait']);
  });

  it('follows the tree it is given: aliases, option choices, nested commands, hidden commands left out', () => {
    // Prepare
    const script = completionScript(sampleProgram(), 'bash');

    // Act
    const top = bashComplete(script, ['failout', '']);
    const viaAlias = bashComplete(script, ['failout', 'o', '--']);
    const formats = bashComplete(script, ['failout', 'out', '--output', '']);
    const nested = bashComplete(script, ['failout', 'zk', 'check', '--']);

    // Assess
    expect(top.sort()).toEqual(['help', 'o', 'out', 'zk']);
    expect(viaAlias.sort()).toEqual(['--for', '--help', '--output']);
    expect(formats).toEqual(['json', 'table']);
    expect(nested.sort()).toEqual(['--help', '--json']);
    expect(script).not.toContain('secret');
    expect(script).toContain('failout 9.9.9');
  });
});

describe('failout completion zsh', () => {
  it('is a #compdef script naming every top-level command with its description', async () => {
    // Prepare
    const commands = topLevelCommands();

    // Act
    const { code, stdout } = await cli('completion', 'zsh');

    // Assess
    expect(code).toBe(0);
    expect(stdout.startsWith('#compdef failout\n')).toBe(true);
    for (const command of commands) expect(stdout).toContain(`'${command}:`);
    expect(stdout).toContain(`'failout ${commands[0]}'`);
  });

  (HAS_ZSH ? it : it.skip)('is valid zsh (zsh -n) and completes through _describe and compadd', async () => {
    // Prepare: zsh's completion functions replaced by ones that print what they were given.
    const { stdout: script } = await cli('completion', 'zsh');
    const stubs = [
      'compdef() { print -r -- "compdef $*" }',
      '_describe() { local -a a; a=("${(@P)${@[-1]}}"); print -r -- "describe ${a[@]%%:*}" }',
      'compadd() { local -a a; a=("${(@P)${@[-1]}}"); print -r -- "compadd ${a[@]}" }',
      '_message() { print -r -- "message $*" }',
    ].join('\n');
    const complete = (...words: string[]): string => {
      const program = `${stubs}\n${script}\nwords=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _failout`;
      return spawnSync('zsh', ['-f', '-c', program], { encoding: 'utf8' }).stdout.trim();
    };

    // Act
    const syntax = spawnSync('zsh', ['-n'], { input: script, encoding: 'utf8' });
    const top = complete('failout', '');
    const shells = complete('failout', 'completion', '');
    const value = complete('failout', 'out', 'greetings-lor1', '--for', '');

    // Assess
    expect({ status: syntax.status, stderr: syntax.stderr }).toEqual({ status: 0, stderr: '' });
    expect(top.split('\n')).toEqual(['compdef _failout failout', `describe ${[...topLevelCommands(), 'help'].join(' ')}`]);
    expect(shells).toContain('compadd bash zsh');
    expect(value).toContain('message value');
  });
});

describe('failout completion, --version', () => {
  it('refuses a shell it has no script for (usage error, exit 2)', async () => {
    // Act
    const { code, stderr } = await cli('completion', 'fish');

    // Assess
    expect(code).toBe(2);
    expect(stderr).toMatch(/'fish' is invalid for argument 'shell'. Allowed choices are bash, zsh/);
  });

  it('prints the version of package.json (--version, -V), the version the scripts name', async () => {
    // Act
    const long = await cli('--version');
    const short = await cli('-V');

    // Assess
    expect([long, short]).toEqual([{ code: 0, stdout: `${VERSION}\n`, stderr: '' }, { code: 0, stdout: `${VERSION}\n`, stderr: '' }]);
    expect((await cli('completion', 'bash')).stdout).toContain(`failout ${VERSION},`);
  });

  it('walks the visible tree: the implicit help command takes its siblings as arguments', () => {
    // Act
    const tree = completionTree(sampleProgram());

    // Assess
    expect(tree.children.map((c) => c.path.join(' '))).toEqual(['failout out', 'failout zk', 'failout help']);
    expect(tree.children.find((c) => c.path[1] === 'help')?.argumentChoices).toEqual(['out', 'zk']);
    expect(tree.children[0]?.options.find((o) => o.flags.includes('--output'))).toEqual({ flags: ['--output'], description: 'how to print', takesValue: true, choices: ['json', 'table'] });
  });
});

import { Argument, Command } from 'commander';
import type { CommandRuntime } from '../command-context';

/**
 * `failout completion bash|zsh`: a shell completion script generated from the program's own command
 * tree (commander's visible commands, options and argument choices), so it cannot drift from the
 * commands: a command added to lib/cli/program.ts completes without touching this file.
 */

/** The shells `failout completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** One option as completion sees it. */
export interface CompletionOption {
  /** Its spellings: `-h`, `--help`. */
  readonly flags: readonly string[];
  readonly description: string;
  /** Whether the next word is its value (completion offers `choices`, or nothing). */
  readonly takesValue: boolean;
  readonly choices: readonly string[];
}

/** One command of the tree, with the words that may follow it. */
export interface CompletionNode {
  /** From the program's name down: `['failout', 'drill', 'list']`. */
  readonly path: readonly string[];
  /** Names this node's command is also reached by (commander aliases). */
  readonly aliases: readonly string[];
  readonly description: string;
  readonly children: readonly CompletionNode[];
  readonly options: readonly CompletionOption[];
  /** Values its positional arguments take (commander `choices`; for `help`, the sibling commands). */
  readonly argumentChoices: readonly string[];
}

// Words a script may hold unquoted inside compgen -W / a zsh array: anything else (a choice with a
// space or a quote) is left out rather than risk a script that runs what it completes.
const SAFE_WORD = /^[A-Za-z0-9._:,@%+/=-]+$/;
const safe = (words: readonly string[]): string[] => words.filter((w) => SAFE_WORD.test(w));
const firstLine = (text: string): string => text.split('\n')[0]?.trim() ?? '';

/** The visible tree under `command`, as `failout --help` shows it (the implicit `help` command too). */
export function completionTree(command: Command, parentPath: readonly string[] = []): CompletionNode {
  const help = command.createHelp();
  const path = [...parentPath, command.name()];
  const visible = help.visibleCommands(command);
  const ownNames = new Set(command.commands.map((c) => c.name()));
  const children = visible.map((child) => {
    const node = completionTree(child, path);
    // commander's implicit `help [command]` takes a sibling's name.
    return ownNames.has(child.name()) ? node : { ...node, argumentChoices: visible.map((c) => c.name()).filter((n) => n !== child.name()) };
  });
  const options = help.visibleOptions(command).map((option) => ({
    flags: [option.short, option.long].filter((f): f is string => f !== undefined),
    description: firstLine(option.description),
    takesValue: option.required,
    choices: option.argChoices ?? [],
  }));
  return {
    path,
    aliases: command.aliases(),
    description: firstLine(command.summary() || command.description()),
    children,
    options,
    argumentChoices: command.registeredArguments.flatMap((a) => a.argChoices ?? []),
  };
}

const walk = (node: CompletionNode): CompletionNode[] => [node, ...node.children.flatMap(walk)];
const single = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
const joined = (node: CompletionNode): string => node.path.join(' ');

/** The `case` branches that move from a command to its subcommand as the typed words name one. */
function descentBranches(nodes: readonly CompletionNode[], indent: string, zsh: boolean): string[] {
  return nodes.flatMap((node) =>
    node.children.map((child) => {
      const spellings = safe([child.path[child.path.length - 1] ?? '', ...child.aliases]).map((word) => single(`${joined(node)} ${word}`));
      const pattern = zsh ? `(${spellings.join('|')})` : `${spellings.join('|')})`;
      return `${indent}${pattern} cmd=${single(joined(child))} ;;`;
    }),
  );
}

/** A bash script: `complete -F _failout_completion failout`. */
export function bashCompletion(root: CompletionNode, version: string): string {
  const name = root.path[0] ?? 'failout';
  const nodes = walk(root);
  const perNode = nodes.flatMap((node) => [
    `        ${single(joined(node))})`,
    `            commands=${single(safe(node.children.flatMap((c) => [c.path[c.path.length - 1] ?? '', ...c.aliases])).join(' '))}`,
    `            options=${single(safe(node.options.flatMap((o) => o.flags)).join(' '))}`,
    `            valued=${single(safe(node.options.filter((o) => o.takesValue).flatMap((o) => o.flags)).join(' '))}`,
    `            values=${single(safe(node.argumentChoices).join(' '))}`,
    '            ;;',
  ]);
  const optionValues = nodes.flatMap((node) =>
    node.options
      .filter((o) => o.takesValue && safe(o.choices).length > 0)
      .flatMap((o) => safe(o.flags).map((flag) => `        ${single(`${joined(node)} ${flag}`)}) COMPREPLY=($(compgen -W ${single(safe(o.choices).join(' '))} -- "$cur")); return 0 ;;`)),
  );
  return [
    `# bash completion for ${name} ${version}, generated from its commands by \`${name} completion bash\`.`,
    `# This shell:  source <(${name} completion bash)`,
    `# Every shell: ${name} completion bash > ~/.local/share/bash-completion/completions/${name}`,
    `_${name}_completion() {`,
    '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
    `    local cmd=${single(name)} word i`,
    '    for ((i = 1; i < COMP_CWORD; i++)); do',
    '        word="${COMP_WORDS[i]}"',
    '        case "$cmd $word" in',
    ...descentBranches(nodes, '            ', false),
    '        esac',
    '    done',
    '    local commands="" options="" valued="" values=""',
    '    case "$cmd" in',
    ...perNode,
    '    esac',
    '    case "$cmd $prev" in',
    ...optionValues,
    '    esac',
    '    COMPREPLY=()',
    '    if [[ " $valued " == *" $prev "* ]]; then return 0; fi',
    '    if [[ "$cur" == -* ]]; then',
    '        COMPREPLY=($(compgen -W "$options" -- "$cur"))',
    '    else',
    '        COMPREPLY=($(compgen -W "$commands $values" -- "$cur"))',
    '    fi',
    '    return 0',
    '}',
    `complete -F _${name}_completion ${name}`,
    '',
  ].join('\n');
}

/** `name:description` for zsh's `_describe` (a colon in the name is escaped). */
const described = (word: string, description: string): string => single(`${word.replaceAll(':', '\\:')}:${description}`);

/** A zsh script: an autoloadable `_failout` (`#compdef failout`) that also works when sourced. */
export function zshCompletion(root: CompletionNode, version: string): string {
  const name = root.path[0] ?? 'failout';
  const nodes = walk(root);
  const perNode = nodes.flatMap((node) => [
    `    (${single(joined(node))})`,
    `      commands=(${node.children.flatMap((c) => safe([c.path[c.path.length - 1] ?? '', ...c.aliases]).map((w) => described(w, c.description))).join(' ')})`,
    `      options=(${node.options.flatMap((o) => safe(o.flags).map((f) => described(f, o.description))).join(' ')})`,
    `      valued=${single(` ${safe(node.options.filter((o) => o.takesValue).flatMap((o) => o.flags)).join(' ')} `)}`,
    `      values=(${safe(node.argumentChoices).map(single).join(' ')})`,
    '      ;;',
  ]);
  const optionValues = nodes.flatMap((node) =>
    node.options
      .filter((o) => o.takesValue && safe(o.choices).length > 0)
      .flatMap((o) => safe(o.flags).map((flag) => `    (${single(`${joined(node)} ${flag}`)}) values=(${safe(o.choices).map(single).join(' ')}); compadd -a values; return ;;`)),
  );
  return [
    `#compdef ${name}`,
    `# zsh completion for ${name} ${version}, generated from its commands by \`${name} completion zsh\`.`,
    `# This shell:  source <(${name} completion zsh)   (after compinit)`,
    `# Every shell: ${name} completion zsh > "\${fpath[1]}/_${name}"`,
    `_${name}() {`,
    // not `path`: in zsh that is the array tied to $PATH.
    `  local cmd=${single(name)} word prev=\${words[CURRENT-1]} valued=''`,
    '  local -i i',
    '  local -a commands options values',
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    word=${words[i]}',
    '    case "$cmd $word" in',
    ...descentBranches(nodes, '      ', true),
    '    esac',
    '  done',
    '  case $cmd in',
    ...perNode,
    '  esac',
    '  case "$cmd $prev" in',
    ...optionValues,
    '  esac',
    '  [[ $valued == *" $prev "* ]] && { _message value; return; }',
    '  if [[ ${words[CURRENT]} == -* ]]; then',
    '    _describe -t options option options',
    '  else',
    '    _describe -t commands command commands',
    '    (( ${#values} )) && compadd -a values',
    '  fi',
    '}',
    `if [[ \${funcstack[1]} == _${name} ]]; then _${name} "$@"; else compdef _${name} ${name}; fi`,
    '',
  ].join('\n');
}

/** The completion script for `shell` of the program `root`. */
export function completionScript(root: Command, shell: CompletionShell): string {
  const tree = completionTree(root);
  const version = root.version() ?? '';
  return shell === 'bash' ? bashCompletion(tree, version) : zshCompletion(tree, version);
}

/** `failout completion bash|zsh`: prints the completion script of the program it belongs to. */
export function completionCommand(rt: CommandRuntime): Command {
  return new Command('completion')
    .description('print a shell completion script (bash or zsh) for every command and option')
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  source <(failout completion bash)                                   this shell
  failout completion bash > ~/.local/share/bash-completion/completions/failout
  failout completion zsh > "\${fpath[1]}/_failout"                      zsh (then restart it)
`,
    )
    .action((shell: CompletionShell, _flags: unknown, command: Command) => {
      let root = command;
      while (root.parent) root = root.parent;
      rt.io.stdout(completionScript(root, shell));
    });
}

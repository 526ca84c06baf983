import { HELP, parseStartOptions } from '../../../lib/local/start-options';

// `npm start -- --help` is where README.md ("Start the stack") sends a user for the options and the
// live view's keys: every option and every key the README names must be in it.

describe('npm start --help', () => {
  it.each(['--rate <n>', '--zk-port', '--sqs-port', '--primary-port', '--fallback-port', '--discovery', '--no-view', '--scenario', '--help'])('lists the option %s', (option) => {
    expect(HELP).toContain(`  ${option}`);
  });

  it.each([
    ['p', /primary control plane/],
    ['e', /add a backend to greetings-lor1/],
    ['k', /kill the bridge leader/],
    ['o', /observer-1/],
    ['b', /break greetings-lva1 .*500.*mend/s],
    ['q', /quit/],
  ])('lists the live view key %s', (key, what) => {
    // Act
    const lines = HELP.split('\n');
    const keys = lines.findIndex((l) => l.startsWith('keys in the live view'));
    const line = lines.findIndex((l, i) => i > keys && l.startsWith(`  ${key}  `));
    const text = line < 0 ? '' : `${lines[line]}\n${lines[line + 1] ?? ''}`;

    // Assess
    expect(keys).toBeGreaterThan(0);
    expect(line).toBeGreaterThan(keys);
    expect(text).toMatch(what);
  });

  it('answers --help with the text, not options', () => {
    expect(parseStartOptions(['--help'])).toBe('help');
  });
});

import type { ConsoleStartOptions, OperatorEnv } from '../operator';

/** The console's own flags, as commander hands them over (lib/operator's one shape of them). */
export type ConsoleFlags = ConsoleStartOptions;

/** A running console, as the command needs it. */
export interface RunningConsole {
  readonly url: string;
  /** One line on where alarm states come from (or that none is configured). */
  readonly alarmsLine: string;
  close(): Promise<void>;
}

/**
 * Starts the console (lib/console, wired in by the CLI's composition root: lib/cli does not import
 * it). @throws OperatorError `input` for bad options.
 */
export type ConsoleLauncher = (flags: ConsoleFlags, env: OperatorEnv) => Promise<RunningConsole>;

/**
 * What every scenario step works with (lib/local/scenario.ts runs them): the stack, a `failout` CLI
 * bound to its environment, the traffic's samples, and waiting for a condition. Steps live in their
 * own files by theme and are listed in scenario.ts.
 */
import { sharesByFabric, type ServiceFabricShares } from './fabric-shares';
import type { LocalStack } from './stack';
import { SERVICE } from './topology';
import { summarize, type Sample } from './traffic';

/** What the scenario's `failout` writes to and reads (lib/cli's `CliIo` has this shape). */
export interface ScenarioCliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
  now(): number;
}

/**
 * Runs one `failout` command line in-process and resolves to its exit code (lib/cli's `run`, handed
 * in by the entry point: lib/local does not import the CLI).
 */
export type CliRunner = (argv: readonly string[], io: ScenarioCliIo) => Promise<number>;

/** The result of one step. */
export interface StepResult {
  readonly step: number;
  readonly name: string;
  readonly expectation: string;
  readonly measured: string;
  readonly passed: boolean;
}

/** Targets the steps are judged by. */
export const TARGETS = {
  /** Step 2: the split between the peers may differ from 2:1 by this many percentage points. */
  splitTolerancePct: 5,
  /** Step 3: "about half" moves: this share of traffic, in percent. */
  halfRangePct: [40, 60] as const,
  /** Step 4: "at once": the good request after a rejected one is applied within this. */
  nextAppliedMs: 3000,
  /** Step 5: the bridge is back on the primary this soon after it restarts (probe cap 1 s + margin). */
  returnMs: 5000,
  /** Steps 2, 5, 6: how long anything may take before the step fails. */
  timeoutMs: 15_000,
} as const;

/** The peers of the sample topology's local cluster. */
export const PEER_A = 'greetings-lva1';
export const PEER_B = 'greetings-ltx1';
/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** What one CLI run printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The scenario's context: the stack, a CLI bound to its environment, and progress output. */
export class Steps {
  constructor(
    readonly stack: LocalStack,
    private readonly out: (line: string) => void,
    private readonly run: CliRunner,
  ) {}

  log(line: string): void {
    this.out(line);
  }

  async cli(...argv: string[]): Promise<CliResult> {
    let stdout = '';
    let stderr = '';
    const io: ScenarioCliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: { ...process.env, ...this.stack.env(), FAILOUT_USER: 'scenario@local' }, now: () => Date.now() };
    const code = await this.run(argv, io);
    this.out(`  $ failout ${argv.join(' ')}  → exit ${code}${stdout.trim() ? `: ${stdout.trim().split('\n')[0]}` : ''}`);
    return { code, stdout, stderr };
  }

  /** The samples of `service`'s requests (default `greetings`: what every step but the evacuation measures). */
  samples(since: number, until = Date.now(), service: string = SERVICE): Sample[] {
    return this.stack.traffic.samplesSince(since, until, service);
  }

  /** Waits until `predicate` holds (polling every 20 ms); returns the elapsed ms or throws after `timeoutMs`. */
  async until(predicate: () => boolean, what: string, timeoutMs: number = TARGETS.timeoutMs): Promise<number> {
    const started = Date.now();
    while (!predicate()) {
      if (Date.now() - started > timeoutMs) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await sleep(20);
    }
    return Date.now() - started;
  }

  /** Each service's requests by fabric among the samples of every service sent in the next `ms`. */
  async measureFabrics(ms: number): Promise<ServiceFabricShares[]> {
    const from = Date.now();
    await sleep(ms);
    return sharesByFabric(this.stack.traffic.allSamplesSince(from, Date.now()), this.stack.traffic.services);
  }

  /** Shares (percent) of `clusters` among greetings' samples sent in the next `ms`. */
  async measure(ms: number): Promise<{ samples: Sample[]; share: (cluster: string) => number; errors: number }> {
    const from = Date.now();
    await sleep(ms);
    const samples = this.samples(from);
    const summary = summarize(samples);
    return { samples, errors: summary.errors, share: (c) => (summary.total === 0 ? 0 : (100 * (summary.byCluster.get(c) ?? 0)) / summary.total) };
  }

  /**
   * Time from `sentAt` until every request of `service` (default `greetings`) goes where `moved` says:
   * the first request after the last one that did not. Waits until none has strayed for 1 s.
   */
  async timeToAll(sentAt: number, moved: (s: Sample) => boolean, service: string = SERVICE): Promise<number> {
    const samples = (since: number): Sample[] => this.samples(since, Date.now(), service);
    const lastStray = (): number => Math.max(sentAt, ...samples(sentAt).filter((s) => !moved(s)).map((s) => s.at));
    await this.until(() => Date.now() - lastStray() > 1000 && samples(lastStray() + 1).length > 0, `switch of all ${service} traffic`);
    const stray = lastStray();
    const first = samples(stray + (stray === sentAt ? 0 : 1)).find(moved);
    return (first?.at ?? Date.now()) - sentAt;
  }
}

/** A step's outcome (its number is given by its place in the list). */
export type StepOutcome = Omit<StepResult, 'step'>;

/** One scenario step. */
export type Step = (s: Steps) => Promise<StepOutcome>;

/** A percentage as the table shows it. */
export const pct = (n: number): string => `${n.toFixed(1)} %`;

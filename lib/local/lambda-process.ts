/**
 * One bundled Lambda function in a child process of its own, as the Lambda service runs it: its own
 * environment (only what it is given), its own stdout (Powertools' JSON logs), an init when the bundle
 * is required, one invocation at a time. A crashed child is started again on the next invocation (a
 * new cold start). The local stack's request worker and the bundle test invoke the failout-requests
 * bundle through it; `invoke` fits the SQS poller's handler type.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createLogger, type Logger } from '../logging';
import type { Lifecycle } from '../lifecycle';

/** Options of {@link LambdaProcess.start}. */
export interface LambdaProcessOptions {
  /** The bundle to run (see `bundleFunction`). */
  readonly bundle: string;
  /** The function's whole environment (the parent's is not inherited; PATH and TZ are added). */
  readonly env: Readonly<Record<string, string>>;
  /** The function's name in the context. Default `failout-requests-local`. */
  readonly functionName?: string;
  /** Invocation timeout (the function's configured timeout). Default 30 s. */
  readonly timeoutMs?: number;
  /** Lines of the child's output kept for {@link LambdaProcess.output}. Default 2,000. */
  readonly keepLines?: number;
  /** Where the process's own life (start, crash) is logged. Default a `lambda-process` logger. */
  readonly logger?: Logger;
}

interface Pending {
  resolve(response: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

interface Reply {
  readonly id?: string;
  readonly ready?: boolean;
  readonly ok?: boolean;
  readonly response?: unknown;
  readonly error?: { readonly name?: string; readonly message: string };
}

const RUNNER = join(__dirname, 'lambda-runner.cjs');

/** Lifecycle: LATENT → STARTED (a child may be replaced after a crash) → CLOSED. */
export class LambdaProcess {
  private child: ChildProcess | undefined;
  private starting: Promise<ChildProcess> | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly lines: string[] = [];
  private readonly log: Logger;
  private lifecycle: Lifecycle = 'running';
  private inits = 0;

  private constructor(private readonly options: LambdaProcessOptions) {
    this.log = options.logger ?? createLogger('lambda-process');
  }

  /** Starts the child and waits for its init (the bundle required). @throws when the init fails. */
  static async start(options: LambdaProcessOptions): Promise<LambdaProcess> {
    const lambda = new LambdaProcess(options);
    await lambda.ensureChild();
    return lambda;
  }

  /** Cold starts so far (the first, and one after every crash). */
  get coldStarts(): number {
    return this.inits;
  }

  /** The child's output lines (stdout and stderr), oldest first: the function's logs. */
  output(): readonly string[] {
    return this.lines;
  }

  /** One invocation; rejects when the function throws, the child dies or the timeout passes. */
  readonly invoke = async (event: SQSEvent, _context?: Context): Promise<SQSBatchResponse | void> => (await this.call(event)) as SQSBatchResponse | undefined;

  /**
   * One invocation with any event (an EventBridge event for the guard), resolving to what the function
   * returned (JSON through IPC); rejects as {@link LambdaProcess.invoke} does.
   */
  readonly call = async (event: unknown): Promise<unknown> => {
    if (this.lifecycle === 'closed') throw new Error('the Lambda process is stopped');
    const child = await this.ensureChild();
    const id = randomUUID();
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    const functionName = this.options.functionName ?? 'failout-requests-local';
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`Task timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      const context = { functionName, invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`, awsRequestId: id, timeoutMs };
      child.send({ id, event, context });
    });
  };

  /** Stops the child; pending invocations reject. Safe to call twice. */
  async close(): Promise<void> {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    const child = this.child ?? (await this.starting?.catch(() => undefined));
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    }
    this.failPending(new Error('the Lambda process stopped'));
  }

  private ensureChild(): Promise<ChildProcess> {
    if (this.child) return Promise.resolve(this.child);
    this.starting ??= this.spawn().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private spawn(): Promise<ChildProcess> {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', TZ: 'UTC', ...this.options.env };
    const child = fork(RUNNER, [this.options.bundle], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    for (const stream of [child.stdout, child.stderr]) stream?.setEncoding('utf8').on('data', (chunk: string) => this.keep(chunk));
    this.inits++;
    return new Promise<ChildProcess>((resolve, reject) => {
      const onReady = (reply: Reply): void => {
        if (!reply.ready) return;
        child.off('message', onReady);
        child.on('message', (message: Reply) => this.onReply(message));
        this.child = child;
        resolve(child);
      };
      child.on('message', onReady);
      child.once('exit', (code, signal) => {
        const wasCurrent = this.child === child;
        if (wasCurrent) this.child = undefined;
        const reason = new Error(`the function's process exited (${signal ?? `code ${code}`}) during ${wasCurrent ? 'an invocation' : 'its init'}: ${this.lines.slice(-3).join(' | ')}`);
        if (!wasCurrent) reject(reason);
        else if (this.lifecycle === 'running') this.log.warn({ code, signal }, 'Lambda process exited; the next invocation starts a new one');
        this.failPending(reason);
      });
    });
  }

  private onReply(reply: Reply): void {
    if (reply.id === undefined) return;
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    clearTimeout(pending.timer);
    if (reply.ok) pending.resolve(reply.response ?? undefined);
    else pending.reject(Object.assign(new Error(reply.error?.message ?? 'the function failed'), { name: reply.error?.name ?? 'Error' }));
  }

  private failPending(error: Error): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(error);
    }
  }

  private keep(chunk: string): void {
    for (const line of chunk.split('\n')) if (line !== '') this.lines.push(line);
    const keep = this.options.keepLines ?? 2_000;
    if (this.lines.length > keep) this.lines.splice(0, this.lines.length - keep);
  }
}

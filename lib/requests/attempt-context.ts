import type { AclSource, ZkReader, ZkWriter } from '../zk';
import type { WorkerAlarmCheck } from './alarm-check';
import type { EvacuationWriteOptions } from './evacuation-writes';
import type { JudgeOptions } from './judge-request';
import type { RequestLogger } from './logger';
import type { RecordCommit } from './record-commit';

/**
 * What one round of a request (the `*-attempt.ts` files) needs of the `RequestWriter`: its
 * settings and the parts it is built of. Fixed after the writer's construction; shared by rounds
 * running at once, so nothing here holds a round's state.
 */
export interface AttemptContext {
  /** A started session holding the writer's digest credential. */
  readonly session: ZkReader & ZkWriter;
  readonly d2BasePath: string;
  /** Parent of the request records. */
  readonly requestsPath: string;
  /** Parent of the drills (definitions and runs). */
  readonly drillsPath: string;
  /** Parent of the fabric maps. */
  readonly fabricsPath: string;
  /** The maximum window the writer parses with (`MAX_FAILOUT_WINDOW`): a drain test's runs must return within it. */
  readonly maxWindowMs: number;
  /** The ACL of created nodes and of the parents created for them. */
  readonly recordAcl: AclSource;
  /** The judge's settings, the view's path among them. */
  readonly judgeOptions: JudgeOptions;
  /** The evacuation writes' settings; each round adds how it runs a multi. */
  readonly evacuations: Omit<EvacuationWriteOptions, 'run'>;
  readonly alarmCheck: WorkerAlarmCheck;
  /** The multi of a round's ops and its record. */
  readonly records: RecordCommit;
  readonly log: RequestLogger;
  /** Epoch ms. */
  readonly clock: () => number;
}

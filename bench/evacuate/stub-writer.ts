// bench/evacuate: a stand-in for the request worker's `evacuate` / `restoreFabric`, used with
// `--writer stub` (the benchmark's own check while the worker lacks them, and a reference point
// after). It does what the contract (../notes/evacuate-contract.md) says the worker writes, and no
// judging: every `<service>-<fabric>` cluster gets a window over all buckets to the same service's
// clusters in the other fabrics, weighted by their host counts, in ONE multi with version checks;
// `restoreFabric` ends those windows now, in one multi. No request records, no view, no evacuation
// node: it is not the worker, only the same write.
import { clusterPath, parseClusterProperties, serializeClusterProperties, urisPath, type FailoutProperties } from '../../lib/d2/data';
import type { RequestRecord, RequestWriter } from '../../lib/requests';
import type { MultiOp, ZkReader, ZkWriter } from '../../lib/zk';
import { FABRICS } from './fabric';
import { multiPayloadBytes } from './session-tap';

/** What `RequestWriter.process` resolves. */
type Outcome = Awaited<ReturnType<RequestWriter['process']>>;

interface FabricRequest {
  readonly requestId: string;
  readonly action: string;
  readonly fabric: string;
  readonly requestedBy?: string;
  readonly reason?: string;
}

const HOUR_MS = 3_600_000;

/** The stand-in writer: `process(body, meta)` as the handler calls it. */
export class StubEvacuationWriter {
  /** The request id of the evacuation written last and not restored yet. */
  private open: string | undefined;

  constructor(
    private readonly session: ZkReader & ZkWriter,
    private readonly basePath: string,
    private readonly clock: () => number = Date.now,
  ) {}

  async process(body: string, meta: { readonly messageId: string }): Promise<Outcome> {
    const request = JSON.parse(body) as FabricRequest;
    const now = this.clock();
    let ops: MultiOp[];
    if (request.action === 'evacuate') ops = await this.evacuateOps(request, now);
    else if (request.action === 'restoreFabric') ops = await this.restoreOps(request.fabric, now);
    else throw new Error(`stub writer: no ${request.action}`);
    await this.session.multi(ops);
    this.open = request.action === 'evacuate' ? request.requestId : undefined;
    const record = {
      requestId: request.requestId,
      status: 'applied',
      cluster: null,
      fabric: request.fabric,
      action: request.action,
      appliedAt: now,
      clusterVersion: null,
      messageId: meta.messageId,
      evacuation: request.action === 'evacuate' ? { mode: 'multi', clusters: ops.length, stages: 1, multiBytes: multiPayloadBytes(ops) } : undefined,
    };
    // The stub's record names actions the record type may not know yet; the handler reads only status and a few fields.
    return { status: 'applied', requestId: request.requestId, cluster: null, record: record as unknown as RequestRecord, attempts: 1 };
  }

  /** The fabric's clusters, by the default rule, with their services. */
  private async fabricClusters(fabric: string): Promise<{ cluster: string; service: string }[]> {
    const { children } = await this.session.children(clusterPath(this.basePath));
    const suffix = `-${fabric}`;
    return children.filter((c) => c.endsWith(suffix)).map((cluster) => ({ cluster, service: cluster.slice(0, -suffix.length) }));
  }

  private async evacuateOps(request: FabricRequest, now: number): Promise<MultiOp[]> {
    const clusters = await this.fabricClusters(request.fabric);
    return Promise.all(
      clusters.map(async ({ cluster, service }) => {
        const peers = await Promise.all(
          FABRICS.filter((f) => f !== request.fabric).map(async (f) => {
            const peer = `${service}-${f}`;
            return { peer, weight: (await this.session.children(urisPath(this.basePath, peer))).children.length };
          }),
        );
        const failout: FailoutProperties = {
          redirects: peers.filter((p) => p.weight > 0),
          ignoredRedirectEntries: 0,
          buckets: [{ offlineAt: now, onlineAt: now + HOUR_MS, requestId: request.requestId, requestedBy: request.requestedBy, reason: request.reason }],
        };
        return this.setFailout(cluster, () => failout);
      }),
    );
  }

  private async restoreOps(fabric: string, now: number): Promise<MultiOp[]> {
    const open = this.open;
    if (open === undefined) throw new Error('stub writer: no open evacuation to restore');
    const clusters = await this.fabricClusters(fabric);
    return Promise.all(
      clusters.map(({ cluster }) =>
        this.setFailout(cluster, (old) => old && { ...old, buckets: old.buckets.map((b) => (b.requestId === open ? { ...b, onlineAt: now } : b)) }),
      ),
    );
  }

  /** A version-checked set of the cluster's document with its failout replaced by `change(old)`. */
  private async setFailout(cluster: string, change: (old: FailoutProperties | null) => FailoutProperties | null): Promise<MultiOp> {
    const path = clusterPath(this.basePath, cluster);
    const { data, stat } = await this.session.get(path);
    const props = parseClusterProperties(data.toString('utf8'));
    const text = serializeClusterProperties({ ...props, failoutProperties: change(props.failoutProperties) });
    return { op: 'set', path, data: Buffer.from(text, 'utf8'), version: stat.version };
  }
}

/**
 * The `failout` package entry: the cluster-failout client (lib/failout) and the D2 client it wraps
 * (lib/d2). A service builds a `LoadBalancerState` over its ZooKeeper session, hands it to
 * {@link buildD2Client}, and sends requests with a routing key; or it gives `buildD2Client` a
 * `discovery` (`{ zookeeper }`, `{ xds: { bootstrap } }` for rest.li's D2 over xDS, or `{ dualRead }`)
 * and the client builds and owns its state.
 *
 * @example
 * ```ts
 * import { connectSession } from 'failout/zk';
 * import { LoadBalancerState, buildD2Client, ZooKeeperFailoutConfigProviderFactory, WeightedFailoutRedirectStrategy } from 'failout';
 *
 * const session = await connectSession({ connectString: '127.0.0.1:2181' });
 * const state = new LoadBalancerState({ session });
 * const client = buildD2Client({
 *   state,
 *   enableClusterFailout: true,
 *   failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
 *   failoutRedirectStrategy: (view) => new WeightedFailoutRedirectStrategy({ view }),
 * });
 * const response = await client.request('d2://greetings/hello', { routingKey: memberId });
 * ```
 *
 * @packageDocumentation
 * @module failout
 */
export * from './failout';
export * from './d2';
// Every part of the D2 documents (lib/d2's face carries the documents' top-level types only).
export * from './d2/schema';
// Both modules export an `assertIsError` (same contract: narrows `unknown` to `Error`); name one.
export { assertIsError } from './failout';
// The one lifecycle vocabulary: the type of every component's `lifecycle` (ZkSession, XdsClient, the xDS management server …).
export type { Lifecycle } from './lifecycle';

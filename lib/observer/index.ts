/**
 * lib/observer: the D2 observer (issue 25). One ZooKeeper view of the D2 tree (`<base>/services/*`,
 * `<base>/clusters/*`, `<base>/uris/*` and their children) served over ADS (SotW) as rest.li's
 * `indis` resource types (`indis.D2Node`, `D2URIMap`, `D2SymlinkNode`, lib/xds's one codec), named by
 * their ZooKeeper paths, so many clients read discovery data from a tier of observers instead of a
 * ZooKeeper session each. Replicas are independent; a client lists several (A71 fallback in lib/xds).
 *
 * @example
 * ```ts
 * const session = await connectSession({ connectString: 'zk1:2181' });
 * const observer = await D2Observer.start({ zk: session, grpc: { port: 32123 }, admin: { host: '127.0.0.1', port: 9901 } });
 * ```
 */
export { D2Observer, type D2ObserverOptions, type ObserverStatus, type ObserverZk } from './observer';
export { DEFAULT_ADMIN_PORT, DEFAULT_GRPC_PORT, loadObserverConfig, type ObserverConfig } from './config';
export type { ObserverTls } from './ads-server';
export { launchObserver, type LaunchedObserver, type LaunchedObserverSummary } from './launch';
export { OBSERVER_EMF_METRICS, observerEmfRecord, startObserverEmfReporter, type ObserverEmfOptions, type ObserverEmfSource } from './emf';
export { ObserverError, isObserverError, type ObserverErrorKind } from './errors';

/**
 * lib/xds/server: the xDS management server (SotW ADS + LRS sink) with fault hooks, for tests, the
 * local stack and the benchmarks; not part of the package's exports. Also the builders of the
 * resources its snapshots take (`buildCluster`, …), which only a server needs.
 */
export { XdsManagementServer, type ManagementServerOptions } from './management-server';
export { SnapshotCache, type ResourceSet, type Snapshot, type SnapshotInput } from './snapshot-cache';
export { FaultHooks, garbageResource, invalidResource, type StreamFailureFault } from './fault-hooks';
export { ServerRecorder, type RecordedLoadReport, type RecordedRequest, type RecordedResponse, type RecordedStream, type RequestClassification } from './recorder';
export { buildListener, type ListenerInput } from '../resource-types/listener';
export { buildRouteConfiguration, type RouteConfigurationInput, type RouteInput } from '../resource-types/route-configuration';
export { buildCluster, type ClusterInput } from '../resource-types/cluster';
export { buildClusterLoadAssignment, type ClusterLoadAssignmentInput, type EndpointInput } from '../resource-types/cluster-load-assignment';

/**
 * The failout CDK constructs, for this app (`infra/bin/app.ts`) and for users' own apps.
 */
export { FailoutStack, type FailoutStackProps, type VpcReference } from './failout-stack';
export { FailoutRequestQueue, type FailoutRequestQueueProps } from './failout-request-queue';
export { FAILOUT_REQUESTS_BUNDLING, FailoutRequestsFunction, REQUESTS_METRICS, type FailoutRequestsFunctionProps } from './failout-requests-function';
export { XdsBridgeService, BRIDGE_METRICS, BRIDGE_ADMIN_PORT, bridgeImageFromDockerfile, type XdsBridgeServiceProps } from './xds-bridge-service';
export { D2ObserverService, OBSERVER_ADMIN_PORT, OBSERVER_GRPC_PORT, OBSERVER_METRICS, type D2ObserverServiceProps } from './d2-observer-service';
export { acknowledgeTaskFindings, adminHealthCheck, createFargateBase, emfMetric, generateAdminToken, imageFromDockerfile, type FargateBase } from './fargate-parts';
export { OperatorPolicy, type OperatorPolicyProps } from './operator-policy';
export { FailoutAlarms, type FailoutAlarmsProps } from './failout-alarms';
export {
  acknowledgeFunctionFindings,
  connectFunction,
  createFunctionLogGroup,
  createFunctionRole,
  failoutFunctionProps,
  FailoutQueueSenderFunction,
  VPC_NETWORK_INTERFACE_ACTIONS,
  type FailoutFunctionSettings,
  type FailoutQueueSenderProps,
  type FunctionMetrics,
  type QueueSenderSettings,
} from './failout-function';
export { FailoutGuard, GUARD_METRICS, type FailoutGuardProps } from './failout-guard';
export { DRILLS_METRICS, FailoutDrills, type FailoutDrillsProps } from './failout-drills';
export { allowAwsApis, allowZooKeeper, zooKeeperPorts, zooKeeperTlsEnvironment, type ControlPlane, type ZooKeeperAccess, type ZooKeeperTls } from './network';
export {
  aclIdFields,
  assertZooKeeperAclIds,
  REQUIRED_ACL_ROLES,
  zooKeeperAclEnvironment,
  ZooKeeperIdentityError,
  type DigestIds,
  type ZooKeeperAclIds,
} from './zookeeper-identities';
export { CONTEXT_KEYS, ContextError, failoutPropsFromContext } from './context';

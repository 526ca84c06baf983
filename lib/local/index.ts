/**
 * lib/local: the whole system on one machine (`npm start`, `npm run demo`, through `functions/local-stack/main.ts`) and its
 * parts, which the benchmarks reuse: a real ZooKeeper process, a local SQS (fauxqs) with a FIFO queue
 * pair, the poller that drives a Lambda handler from it, and the scripted scenario. Development
 * tooling: it loads everything (Powertools, @aws-sdk, the bridge, the xDS server) and is not part of
 * the package.
 */
export { LocalStack, type LocalDiscovery, type LocalStackOptions } from './stack';
export { LocalObservers, type ObserverView } from './observers';
export type { ClusterView, ReplicaView, StackEnv } from './view';
export { runScenario, formatResults, type ScenarioOptions, type StepResult } from './scenario';
export type { CliRunner, ScenarioCliIo } from './scenario-steps';
export { interactive, scenario } from './interactive';
export { HELP, parseStartOptions } from './start-options';
export {
  startZooKeeper,
  startEnsemble,
  type SessionTimeouts,
  type ZooKeeperOptions,
  type ZooKeeperServer,
  type ZooKeeperEnsemble,
  type ZooKeeperTlsOptions,
} from './zookeeper';
export {
  LOCAL_REGION,
  createFifoQueuePair,
  localSqsClient,
  startLocalSqs,
  type FifoQueueOptions,
  type FifoQueuePair,
  type LocalSqs,
  type LocalSqsOptions,
} from './sqs';
export { bundleFunction, LAMBDA_BUNDLING, type FunctionBundle, type LambdaFunctionName } from './function-bundle';
export { LambdaProcess, type LambdaProcessOptions } from './lambda-process';
export { localSecretArn, startLocalSecrets, type LocalSecrets } from './secrets-server';
export { SqsPoller, type SqsHandler, type SqsPollerOptions, type SqsPollerStats } from './sqs-poller';
export { AlarmEvaluator, errorAlarmName, type AlarmEvaluatorOptions, type AlarmTransition, type LocalAlarm } from './alarm-evaluator';
export { ALL_CLUSTERS, CLUSTERS, FABRICS, LOCAL_CLUSTER, LOCAL_FABRIC, SERVICES } from './topology';
export { fabricPercent, sharesByFabric, type ServiceFabricShares } from './fabric-shares';

/**
 * lib/zk/config: the pure half of lib/zk's configuration. ZooKeeper over TLS: the options, the
 * `ZK_TLS_*` variables and reading their PEM files. No node-zookeeper-client, no pino: configuration
 * readers (the bridge's contract, which the CDK app loads at synth; the worker's and the CLI's
 * settings) import this face, not `lib/zk`. `lib/zk` re-exports what a service needs of it (TLS, the roles).
 */
export { assertZkTlsOptions, loadZkTlsFiles, loadZkTlsFromEnv, zkTlsFilesFromEnv, ZkTlsConfigError, ZK_TLS_VARIABLES } from '../tls-config';
export type { ZkTlsFileField, ZkTlsFiles, ZkTlsOptions } from '../tls-config';
// Access control: the other roles' identities (ZK_ACL_*) and FAILOUT_ALLOW_OPEN_ACL, parsed once for every component.
export { ACL_ROLE_VARIABLES, aclRolesFromEnv, allowOpenAclFromEnv, isDigestId, parseAclRoles } from '../acl-config';
export type { AclRolesResult } from '../acl-config';
// One rule for a digest credential's text (user:password or JSON), for every component's secret.
export { parseDigestCredential } from '../credential-text';
export type { DigestCredentialResult } from '../credential-text';

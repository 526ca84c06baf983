/**
 * The bridge's part of access control (docs/deployers.md "Access control"): the ACL of every node it creates
 * (from the one table, lib/requests `aclFor`), and its refusal to start writing into a tree that anyone
 * could change, which `failout zk check` would fail.
 */
import type { Logger } from '../logging';
import { aclLayout, policyAcl, type AclLayout } from '../requests/acl';
import { auditAcls, auditPassed, describeAudit, missingRoles, OPEN_ACL, withOwnIdentity, type ZkAclAccess, type ZkReader } from '../zk';
import type { BridgeConfig } from './config';
import type { NodeAcl } from './diff';
import { BridgeError } from './errors';

/** The layout as the bridge knows it: its D2 base and election path; records and drills at their defaults. */
export function bridgeAclLayout(config: BridgeConfig): AclLayout {
  return aclLayout({ d2BasePath: config.zookeeper.basePath, electionPaths: [config.zookeeper.electionPath] });
}

/**
 * Decides how the bridge creates nodes, before it writes anything:
 * - with a credential: the policy's ACLs, after checking that no node of its tree (the D2 base and the
 *   election path, with their parents) is writable without credentials;
 * - without one: refuses, unless `allowOpenAcl`, which creates nodes with the open ACL (the behaviour
 *   before access control) and says so in the log.
 * With `allowOpenAcl`, an open tree is logged instead of refused.
 * @throws BridgeError `access` naming the open nodes and what to run.
 */
export async function prepareBridgeAccess(session: ZkReader & ZkAclAccess, config: BridgeConfig, log: Logger): Promise<NodeAcl> {
  const layout = bridgeAclLayout(config);
  if (config.zookeeper.credentials.length === 0) {
    if (!config.allowOpenAcl) {
      throw new BridgeError(
        'access',
        'no ZooKeeper credential: the bridge would create D2 nodes it cannot protect. Set zookeeper.credentials (ZK_CREDENTIALS=user:password), or allowOpenAcl (FAILOUT_ALLOW_OPEN_ACL=1, --allow-open-acl) to create open nodes',
      );
    }
    log.warn('no ZooKeeper credential and allowOpenAcl: creating nodes anyone may change (world:anyone:cdrwa)');
    return () => OPEN_ACL;
  }
  const audit = await auditAcls(session, [layout.d2BasePath, ...layout.electionPaths]);
  if (!auditPassed(audit)) {
    const findings = describeAudit(audit);
    if (!config.allowOpenAcl) {
      throw new BridgeError(
        'access',
        `${audit.open.length + audit.unreadable.length} node(s) of the bridge's tree can be changed without credentials (or not checked): ${findings.join('; ')}. ` +
          'Run `failout zk secure` (with ZK_ADMIN_DIGEST and the role ids) to apply the ACLs, or start with allowOpenAcl (FAILOUT_ALLOW_OPEN_ACL=1, --allow-open-acl)',
      );
    }
    log.warn({ nodes: findings }, 'allowOpenAcl: writing into a tree anyone may change; run `failout zk secure`');
  }
  const roles = withOwnIdentity(config.acl, 'bridge', config.zookeeper.credentials);
  const missing = missingRoles(roles, ['requestWriter', 'admin', 'announcer']);
  if (missing.length > 0) {
    log.warn({ missing }, 'no identity configured for some roles: nodes created now do not grant them (set ZK_ACL_*_ID; `failout zk secure` fixes existing nodes)');
  }
  return policyAcl(roles, layout);
}

/**
 * The request writer's part of access control (docs/deployers.md "Access control"): the ACLs of what it creates
 * (records, their parent, its parents), from the one table (`aclFor`, acl-table.ts), and its refusal to start
 * writing into a tree that anyone could change, which `failout zk check` would fail. The Lambda
 * (`functions/commons/request-writer.ts`) and the local stack both go through here.
 */
import { clusterPath } from '../d2/data';
import { auditAcls, auditPassed, describeAudit, missingRoles, OPEN_ACL, withOwnIdentity, type AclSource, type DigestCredential, type ZkAclAccess, type ZkReader } from '../zk';
import { aclLayout, policyAcl } from './acl-table';
import type { RequestsConfig } from './config';
import { RequestError } from './errors';
import { silentRequestLogger, type RequestLogger } from './logger';

/** Options of {@link resolveWriterAcl}. */
export interface WriterAccessOptions {
  /** A started session holding `credential`. */
  readonly session: ZkReader & ZkAclAccess;
  /** Paths, the other roles' identities and `allowOpenAcl`, as `loadRequestsConfig` reads them. */
  readonly config: Pick<RequestsConfig, 'd2BasePath' | 'requestsPath' | 'aclRoles' | 'allowOpenAcl'> & Partial<Pick<RequestsConfig, 'drillsPath' | 'fabricsPath' | 'evacuationsPath'>>;
  /** The writer's own credential (its identity), or undefined when it has none. */
  readonly credential: DigestCredential | undefined;
  readonly logger?: RequestLogger;
}

/**
 * The `recordAcl` of the writer, decided before it writes anything:
 * - with a credential: the policy's ACLs (the writer's identity from its credential, the others from
 *   `ZK_ACL_*`), after checking that no node it writes into (`<d2>/clusters`, the records, drills,
 *   fabric maps and evacuations parents, the view, each with what lies below and their parents) is
 *   writable without credentials;
 * - without one: refuses, unless `allowOpenAcl`, which creates records with the open ACL, as before
 *   access control, and says so in the log.
 * With `allowOpenAcl`, an open tree is logged instead of refused.
 * @throws RequestError `access` naming the open nodes and what to run; ZkError on connection loss.
 */
export async function resolveWriterAcl(options: WriterAccessOptions): Promise<AclSource> {
  const { config, credential } = options;
  const log = options.logger ?? silentRequestLogger;
  if (!credential) {
    if (!config.allowOpenAcl) {
      throw new RequestError(
        'access',
        'no ZooKeeper credential: the writer would create records it cannot protect. Set ZK_DIGEST_SECRET_ARN (or ZK_DIGEST locally), or FAILOUT_ALLOW_OPEN_ACL=1 to create open records',
        { variable: 'ZK_DIGEST_SECRET_ARN' },
      );
    }
    log.warn('no ZooKeeper credential and FAILOUT_ALLOW_OPEN_ACL: creating records anyone may change (world:anyone:cdrwa)');
    return OPEN_ACL;
  }
  const layout = aclLayout({
    d2BasePath: config.d2BasePath,
    requestsPath: config.requestsPath,
    ...(config.drillsPath === undefined ? {} : { drillsPath: config.drillsPath }),
    ...(config.fabricsPath === undefined ? {} : { fabricsPath: config.fabricsPath }),
    ...(config.evacuationsPath === undefined ? {} : { evacuationsPath: config.evacuationsPath }),
  });
  // Every subtree it writes into, not only the clusters and records: an open drill node is a failout
  // anyone can schedule (the drill runner sends what it names), an open view or fabric map steers
  // every judgement.
  const audit = await auditAcls(options.session, [clusterPath(layout.d2BasePath), layout.requestsPath, layout.drillsPath, layout.viewPath, layout.fabricsPath, layout.evacuationsPath]);
  if (!auditPassed(audit)) {
    const findings = describeAudit(audit);
    if (!config.allowOpenAcl) {
      throw new RequestError(
        'access',
        `${audit.open.length + audit.unreadable.length} node(s) the writer writes into can be changed without credentials (or not checked): ${findings.join('; ')}. ` +
          'Run `failout zk secure` (with ZK_ADMIN_DIGEST and the role ids) to apply the ACLs, or set FAILOUT_ALLOW_OPEN_ACL=1',
      );
    }
    log.warn('FAILOUT_ALLOW_OPEN_ACL: writing into a tree anyone may change; run `failout zk secure`', { nodes: findings });
  }
  const roles = withOwnIdentity(config.aclRoles, 'requestWriter', [credential]);
  const missing = missingRoles(roles, ['bridge', 'admin']);
  if (missing.length > 0) log.warn('no identity configured for some roles: nodes created now do not grant them (set ZK_ACL_*_ID)', { missing });
  return policyAcl(roles, layout);
}

/** What a reader says of a node its session may not read (ZooKeeper `noAuth` on a read): one wording for the worker, the guard, the CLI and the console. */
export const NO_READ_PERMISSION = 'the node cannot be read: no READ permission for this session (its ACL; ZooKeeper noAuth)';

/** A ZooKeeper installation: its home and the classpath that runs its server. */
export interface ZooKeeperInstallation {
  home: string;
  classpath: string;
}
export function findZooKeeper(env?: NodeJS.ProcessEnv): ZooKeeperInstallation | undefined;
export function ensureZooKeeper(log?: (msg: string) => void): ZooKeeperInstallation;
export const INSTALL_COMMAND: string;

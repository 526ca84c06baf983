import { hostname, userInfo } from 'node:os';
import type { OperatorEnv } from './errors';

/** Who is asking, when `--by` is not given: `$FAILOUT_USER`, else `user@host`. */
export function defaultRequester(env: OperatorEnv): string {
  if (env.FAILOUT_USER) return env.FAILOUT_USER;
  let user = env.USER ?? env.LOGNAME;
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return `${user}@${hostname()}`;
}

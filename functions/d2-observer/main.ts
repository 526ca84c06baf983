/**
 * The d2-observer Fargate task: start an observer from the environment (`launchObserver`, the
 * variables of `loadObserverConfig`), and stop cleanly on SIGTERM/SIGINT (streams end UNAVAILABLE so
 * clients move to another observer, then the session closes) within a few seconds. With
 * `OBSERVER_EMF_NAMESPACE` set (the CDK stack sets it), one CloudWatch EMF line a minute on stdout
 * carries the gauges the alarms watch. Logic lives in lib/observer.
 */
import { closeOnSignal } from '../../lib/lifecycle';
import { createLogger } from '../../lib/logging';
import { launchObserver } from '../../lib/observer';

const STOP_DEADLINE_MS = 5000;
const log = createLogger('d2-observer');

async function main(): Promise<void> {
  // Logs `d2-observer started` with a summary that says whether the admin asks for a token, never the token.
  const launched = await launchObserver(process.env, { logger: log });
  closeOnSignal(launched, { logger: log, deadlineMs: STOP_DEADLINE_MS });
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'd2-observer failed to start');
  process.exit(1);
});

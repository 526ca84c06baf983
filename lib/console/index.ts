/**
 * lib/console: the operator's web console (`failout console`, also served by `npm start`). A fastify
 * server on loopback by default that reads ZooKeeper through watches (one session per server), the
 * bridges' admin status and the services' Prometheus counters, renders the page on the server
 * (escaped by construction), pushes live updates by server-sent events, and acts through the
 * operator's one request path (lib/operator's `OperatorRequests`, as the CLI does). Its fabric view
 * (issue 23) shows fabrics × services and each fabric's evacuation, and evacuates and restores a fabric
 * through the same Check → Confirm (fabric-view.ts, fabric-page.ts, fabric-actions.ts). Its drills
 * section (issue 24, item 7) lists every drill and drain test with its next run and outcomes, and runs
 * one now with the drill runner's own decision (drill-watch.ts, drill-view.ts, drill-page.ts,
 * drill-actions.ts). The stop alarms'
 * states come through lib/safety's `AlarmStates` port ({@link ConsoleAlarmSource}).
 */
export { ConsoleServer, ConsoleConfigError, sseFrame } from './server';
export type { ConsoleServerOptions } from './server';
export type { StreamClientView } from './event-streams';
export { ALARM_POLL_MS } from './alarms';
export type { AlarmStatesView, ConsoleAlarmSource } from './alarms';
export { listenProblem, isLoopback, MIN_TOKEN_LENGTH } from './security';
export { consoleAlarmSource, consoleServerOptions, launchConsole, parseMetricsUrls, startConsole } from './console-options';

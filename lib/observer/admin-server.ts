/**
 * The observer's admin HTTP: `lib/admin-http`'s server with the observer's realm and errors.
 * `/healthz` (200 while the process can do its job; open without the token, as for the bridge: a
 * health probe carries no secret), `/readyz` (200 once the ZooKeeper session is connected and the base
 * path was read), `/status` (JSON), `/config_dump` (CSDS as proto3 JSON, `client-status.ts`) and
 * `/metrics` (Prometheus text). GET only.
 * Access rules in `admin-access.ts`.
 */
import { AdminHttpServer, type AdminHttpBinding, type AdminHttpSource } from '../admin-http';
import { adminAccessError, OBSERVER_ADMIN_TOKEN_VARIABLE } from './admin-access';

/** What the admin endpoints show. */
export type AdminSource = AdminHttpSource;

/** Options of {@link ObserverAdminServer.start}: where to bind, the token, and what the endpoints show. */
export interface AdminServerOptions extends AdminHttpBinding {
  readonly source: AdminSource;
}

/** The admin HTTP server of an observer (`port`, `close()`). */
export type ObserverAdminServer = AdminHttpServer;

/** Starts the admin HTTP server of an observer. */
export const ObserverAdminServer = {
  /**
   * Listens on `host:port`; the 401 challenge names the realm `d2-observer`.
   * @throws ObserverError `config` (field `admin.token`) when the access rules refuse; nothing is bound then.
   */
  start(options: AdminServerOptions): Promise<ObserverAdminServer> {
    return AdminHttpServer.start({ ...options, realm: 'd2-observer', tokenVariable: OBSERVER_ADMIN_TOKEN_VARIABLE, refuse: adminAccessError });
  },
};

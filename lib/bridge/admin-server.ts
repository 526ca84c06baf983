/**
 * The bridge's admin HTTP: `lib/admin-http`'s server with the bridge's paths, realm and errors.
 * `/healthz`, `/readyz`, `/status` (JSON), `/config_dump` (CSDS as JSON, gRFC A40: the same
 * `ClientStatusResponse` the gRPC admin port serves) and `/metrics` (Prometheus text). GET only.
 *
 * Access (issue 14, rules in `admin-access.ts`): loopback by default. On any other address a bearer
 * token is required, and with a token every path but `/healthz` answers 401 without it. The token is
 * checked as on the gRPC admin port; it is never logged or echoed.
 */
import { AdminHttpServer, type AdminHttpBinding, type AdminHttpSource } from '../admin-http';
import { adminAccessError, BRIDGE_ADMIN_TOKEN_VARIABLE } from './admin-access';

/** What the admin endpoints show: all of them, `/config_dump` included. */
export interface AdminSource extends AdminHttpSource {
  configDump(): unknown;
}

/** Options of {@link AdminServer.start}: where to bind, the token, and what the endpoints show. */
export interface AdminServerOptions extends AdminHttpBinding {
  readonly source: AdminSource;
}

/** The admin HTTP server of a bridge (bound address, `port`, `close()`). */
export type AdminServer = AdminHttpServer;

/** Starts the admin HTTP server of a bridge. */
export const AdminServer = {
  /**
   * Listens on `host:port`; the 401 challenge names the realm `xds-bridge`.
   * @throws BridgeError `config` (field `admin.token`) for a non-loopback host without a token, or a
   * token shorter than 32 characters; nothing is bound then.
   */
  start(options: AdminServerOptions): Promise<AdminServer> {
    return AdminHttpServer.start({ ...options, realm: 'xds-bridge', tokenVariable: BRIDGE_ADMIN_TOKEN_VARIABLE, refuse: adminAccessError });
  },
};

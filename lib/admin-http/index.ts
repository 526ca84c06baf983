/**
 * lib/admin-http: the admin endpoints every long-running failout process serves, below the wings that
 * serve them (lib/bridge, lib/observer; STYLE "arrows point down"): the access rules (loopback without
 * a token, otherwise a bearer token of at least 32 characters, kept as its SHA-256 digest and compared
 * in constant time) and the HTTP server with `/healthz`, `/readyz`, `/status`, `/config_dump` and
 * `/metrics`. Node built-ins only; the callers bring their own errors, realm and token variable.
 */
export { ADMIN_TOKEN_MIN_LENGTH, adminAccessProblem, adminTokenDigest, adminTokenProblem, bearerMatches, isLoopbackHost } from './access';
export { AdminHttpServer, type AdminHttpBinding, type AdminHttpOptions, type AdminHttpSource } from './server';

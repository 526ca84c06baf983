// Child-process shim for lib/local/sqs.ts: fauxqs is ESM-only, and jest runs our CommonJS inside a
// vm context where `import()` throws "A dynamic import callback was invoked without
// --experimental-vm-modules" (the `new Function('s', 'return import(s)')` trick fails the same way).
// A plain `node` child has no such limit, so the server runs here and talks to the parent over stdio:
// one JSON line `{"address": …, "port": …}` on stdout once listening; it stops when stdin closes
// (the parent called stop() or died) or on SIGTERM/SIGINT.
//
// Not fauxqs's startFauxqs: it listens on 0.0.0.0 whatever `host` it is given (1.9.2: `host` only
// names the queue URLs), which put npm start's request queue on the network. Its buildApp is the same
// server without the listen, so the listen here binds `host` (127.0.0.1 unless told otherwise).
import { buildApp } from 'fauxqs';

const host = process.env.FAUXQS_HOST ?? '127.0.0.1';
const port = Number(process.env.FAUXQS_PORT ?? '0');

const app = buildApp({ host, logger: false });
const address = await app.listen({ port, host });
const server = { address, port: app.server.address().port, stop: () => app.close() };
process.stdout.write(`${JSON.stringify({ address: server.address, port: server.port })}\n`);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await server.stop().catch(() => undefined);
  process.exit(0);
}
process.stdin.on('end', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

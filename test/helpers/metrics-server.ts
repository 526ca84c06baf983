import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A service's Prometheus text endpoint on loopback: `counter{cluster="…"}` grows at the given
 * requests/s since the server started (read at every scrape), like a service's counter of requests by
 * target cluster. `hits` counts the scrapes; `status` makes it answer an error.
 */
export interface MetricsServer {
  readonly url: string;
  hits: number;
  status: number;
  /** Requests/s by cluster from now on (the counters keep their totals). */
  setRates(rates: Record<string, number>): void;
  /** Serves these lines instead of the counters. */
  setText(text: string | undefined): void;
  close(): Promise<void>;
}

export async function startMetricsServer(counter: string, rates: Record<string, number>): Promise<MetricsServer> {
  let since = Date.now();
  let base: Record<string, number> = {};
  let current = rates;
  let fixed: string | undefined;
  const totals = (): Record<string, number> => {
    const seconds = (Date.now() - since) / 1000;
    const out: Record<string, number> = { ...base };
    for (const [cluster, rate] of Object.entries(current)) out[cluster] = (out[cluster] ?? 0) + rate * seconds;
    return out;
  };
  const state = {
    url: '',
    hits: 0,
    status: 200,
    setRates(next: Record<string, number>): void {
      base = totals();
      since = Date.now();
      current = next;
    },
    setText(text: string | undefined): void {
      fixed = text;
    },
    close: (): Promise<void> => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((_request, response) => {
    state.hits += 1;
    const body =
      fixed ??
      [`# HELP ${counter} requests by target cluster`, `# TYPE ${counter} counter`, ...Object.entries(totals()).map(([c, v]) => `${counter}{cluster="${c}",code="200"} ${Math.floor(v)}`)].join('\n') + '\n';
    response.writeHead(state.status, { 'content-type': 'text/plain; version=0.0.4' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  return state;
}

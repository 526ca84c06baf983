/** What the console's action routes answered: the status and the JSON body. */
export interface ConsoleAnswer<J> {
  readonly status: number;
  readonly json: J;
}

/**
 * POSTs JSON to the console at `url` as its page does: with the CSRF token the page carries (read
 * from `page`, the page's HTML) and same-origin credentials.
 */
export function consolePoster<J>(url: string, page: string): (path: string, body: unknown) => Promise<ConsoleAnswer<J>> {
  const token = /name="csrf-token" content="([^"]+)"/.exec(page)?.[1];
  if (token === undefined) throw new Error('the page carries no csrf-token');
  return async (path, body) => {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': token }, body: JSON.stringify(body) });
    return { status: response.status, json: (await response.json()) as J };
  };
}

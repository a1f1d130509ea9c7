import type { ServerResponse } from 'node:http';

const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

/** The page needs inline CSS and its own filter form (a GET to itself), nothing else: no script, no outside request, no framing. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Sends a complete response; HEAD requests get the headers only (node:http drops the body). */
export function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers?: Readonly<Record<string, string>>): void {
  send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(value, null, 2)}\n`, headers);
}

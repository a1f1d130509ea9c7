import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listen, type Listening } from '../../src/entry/server/listen.js';

/** A routed answer of a fake JSON service. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A request as a fake JSON service sees it: the body read whole, and parsed when it is JSON. */
export interface JsonRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingHttpHeaders;
  /** The body as text (`''` when there was none). */
  readonly raw: string;
  /** The parsed body: `undefined` when empty, {@link NOT_JSON} when it does not parse. */
  readonly body: unknown;
}

/** What {@link JsonRequest.body} holds when the body was not JSON (the fakes answer that as their service does). */
export const NOT_JSON = Symbol('not JSON');

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Serves `handle` on 127.0.0.1 at a free port: the HTTP plumbing every fake CRM shares, so each
 * fake holds only its routes, its auth and its limits. A reply with no body gets no content type.
 */
export async function serveJson(contentType: string, handle: (request: JsonRequest) => Reply): Promise<Listening> {
  const server = createServer((request, response) => {
    void readBody(request).then((raw) => {
      const reply = handle({
        method: request.method ?? 'GET',
        url: new URL(request.url ?? '/', 'http://fake'),
        headers: request.headers,
        raw,
        body: parseJson(raw),
      });
      if (reply.body === undefined) {
        response.writeHead(reply.status, { ...reply.headers });
        response.end();
        return;
      }
      response.writeHead(reply.status, { 'content-type': contentType, ...reply.headers });
      response.end(JSON.stringify(reply.body));
    });
  });
  return listen(server, '127.0.0.1', 0);
}

function parseJson(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return NOT_JSON;
  }
}

async function readBody(request: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { verifyWebhookSignature } from '../../connectors/webhook/index.js';

/** A request as the receiver got it, before any processing. */
export interface ReceivedRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** What the documented `verifyWebhookSignature` said about it. */
  readonly verified: boolean;
  /** The status answered; 0 when the connection was reset instead. */
  readonly status: number;
}

/** A canned answer for the next POST, as a flaky receiver or its load balancer would give. */
export interface ScriptedResponse {
  readonly status: number;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /** Wait before answering, to make the sender time out. */
  readonly delayMs?: number;
  /** Close the connection without an answer (the sender sees a reset). */
  readonly reset?: boolean;
}

/** A stored record: the payload record as received, keyed by (business, stream, id). */
export type ReceivedRecord = Record<string, unknown> & { readonly id: string };

interface Payload {
  readonly business_id: string;
  readonly stream: string;
  readonly records: readonly ReceivedRecord[];
  readonly event?: string;
  readonly deleted?: readonly { readonly id: string; readonly deleted_at: string }[];
}

/**
 * A webhook receiver that behaves like the README asks real ones to: it verifies the signature
 * with the exported function (401 otherwise), drops a batch whose `Idempotency-Key` it has seen
 * (`Idempotent-Replayed: true`), upserts records by (business, stream, id) and answers
 * `{ written, unchanged }`; a `deleted` event marks stored records deleted, and a record sent
 * again is no longer deleted. Scripted responses come first, for outages and refusals.
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  readonly #server: Server;
  readonly #secret: string;
  readonly #script: ScriptedResponse[] = [];
  readonly #frontScript: ScriptedResponse[] = [];
  readonly #seenKeys = new Set<string>();
  readonly #records = new Map<string, { businessId: string; stream: string; record: ReceivedRecord; deletedAt?: string }>();
  #url = '';

  private constructor(secret: string) {
    this.#secret = secret;
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => void this.#handle(request.method ?? 'GET', request.headers, Buffer.concat(chunks).toString('utf8'), response));
    });
  }

  /** Listens on 127.0.0.1 at a free port; verifies with `secret`, which may differ from the sender's. */
  static async start(secret: string): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(secret);
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.#server.address() as AddressInfo;
    receiver.#url = `http://127.0.0.1:${port}/hooks/callsync`;
    return receiver;
  }

  get url(): string {
    return this.#url;
  }

  /** Answers the next POSTs with these, in order, without storing anything. */
  respondNext(...responses: ScriptedResponse[]): void {
    this.#script.push(...responses);
  }

  /**
   * Answers the next requests of any method, `HEAD` included, with these, before anything else:
   * what the load balancer or proxy in front of a receiver does while it warms up or restarts.
   */
  respondNextToAny(...responses: ScriptedResponse[]): void {
    this.#frontScript.push(...responses);
  }

  /** Stored records of one business and stream not marked deleted, sorted by id. */
  rows(businessId: string, stream: string): ReceivedRecord[] {
    return [...this.#records.values()]
      .filter((entry) => entry.businessId === businessId && entry.stream === stream && entry.deletedAt === undefined)
      .map((entry) => entry.record)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Ids of one business and stream a `deleted` event marked, sorted. */
  deleted(businessId: string, stream: string): string[] {
    return [...this.#records.values()]
      .filter((entry) => entry.businessId === businessId && entry.stream === stream && entry.deletedAt !== undefined)
      .map((entry) => entry.record.id)
      .sort();
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(method: string, headers: IncomingHttpHeaders, body: string, response: ServerResponse): Promise<void> {
    const verified = verifyWebhookSignature({
      secret: this.#secret,
      timestamp: single(headers['x-callsync-timestamp']),
      signature: single(headers['x-callsync-signature']),
      body,
    });
    const scripted = this.#frontScript.shift() ?? (method === 'POST' ? this.#script.shift() : undefined);
    const reply = scripted ?? this.#process(method, headers, body, verified);
    this.requests.push({ method, headers, body, verified, status: reply.reset === true ? 0 : reply.status });
    if (reply.delayMs !== undefined) await delay(reply.delayMs);
    if (reply.reset === true) {
      response.socket?.destroy();
      return;
    }
    if (response.destroyed) return;
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(reply.body ?? '');
  }

  #process(method: string, headers: IncomingHttpHeaders, body: string, verified: boolean): ScriptedResponse {
    if (method !== 'POST') return { status: 405 };
    if (!verified) return { status: 401, body: '{"error":"invalid signature"}' };
    const key = single(headers['idempotency-key']);
    if (key === undefined) return { status: 400, body: '{"error":"missing Idempotency-Key"}' };
    const payload = JSON.parse(body) as Payload;
    if (this.#seenKeys.has(key)) {
      return { status: 200, headers: { 'idempotent-replayed': 'true' }, body: JSON.stringify({ written: 0, unchanged: payload.records.length }) };
    }
    const keyOf = (id: string): string => JSON.stringify([payload.business_id, payload.stream, id]);
    for (const { id, deleted_at: deletedAt } of payload.event === 'deleted' ? (payload.deleted ?? []) : []) {
      const entry = this.#records.get(keyOf(id));
      if (entry !== undefined) entry.deletedAt = deletedAt;
    }
    let written = 0;
    for (const record of payload.records) {
      const id = keyOf(record.id);
      const { synced_at: _new, ...content } = record;
      const existing = this.#records.get(id);
      const { synced_at: _old, ...stored } = existing?.record ?? ({} as Record<string, unknown>);
      if (existing?.deletedAt === undefined && JSON.stringify(stored) === JSON.stringify(content)) continue;
      this.#records.set(id, { businessId: payload.business_id, stream: payload.stream, record });
      written += 1;
    }
    this.#seenKeys.add(key);
    return { status: 200, body: JSON.stringify({ written, unchanged: payload.records.length - written }) };
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

import type { ServerResponse } from 'node:http';
import type { CounterBook } from './counters.js';
import type { FaultPlan } from './faults.js';
import type { HugeEnvelope } from './slow-bodies.js';
import { writeHugeBody, writeTrickle } from './slow-bodies.js';

export interface Reply {
  status: number;
  /** Serialized JSON body. */
  body: string;
  headers?: Record<string, string>;
}

const ERROR_500 = JSON.stringify({ error: { code: '500', message: 'Internal server error' } });
/** What a misbehaving proxy in front of the service answers with a 200: HTML, not JSON. */
const BAD_JSON_BODY = '<html><body>502 Bad Gateway</body></html>';

/** Writes replies, applying the request's fault plan and counting statuses and faults. */
export class Responder {
  readonly #counters: CounterBook;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(counters: CounterBook) {
    this.#counters = counters;
  }

  send(res: ServerResponse, reply: Reply, fault: FaultPlan): void {
    if (fault.delayMs > 0) {
      this.#counters.fault('slow');
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#write(res, reply, fault);
      }, fault.delayMs);
      this.#timers.add(timer);
      return;
    }
    this.#write(res, reply, fault);
  }

  /** A 200 list body of `bytes` bytes, streamed (`hostile.hugeBodyBytes`); no other fault applies. */
  sendHuge(res: ServerResponse, headers: Record<string, string>, bytes: number, declared: boolean, envelope: HugeEnvelope): void {
    this.#counters.fault('hugeBodies');
    this.#counters.status(200);
    writeHugeBody(res, headers, bytes, declared, envelope, (n) => this.#counters.fault('hugeBodyBytesWritten', n));
  }

  /** Drops pending slow and trickling responses (their sockets are closed with the server). */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #write(res: ServerResponse, reply: Reply, fault: FaultPlan): void {
    if (res.destroyed) return;
    if (fault.kind === 'reset') {
      this.#counters.fault('resets');
      res.socket?.destroy();
      return;
    }
    const actual =
      fault.kind === 'error' ? { ...reply, status: 500, body: ERROR_500 } : fault.kind === 'badJson' ? { ...reply, status: 200, body: BAD_JSON_BODY } : reply;
    if (fault.kind === 'error') this.#counters.fault('errors');
    if (fault.kind === 'badJson') this.#counters.fault('badJson');
    const body = Buffer.from(actual.body, 'utf8');
    res.writeHead(actual.status, {
      ...actual.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.length),
    });
    this.#counters.status(actual.status);
    if ((fault.trickleMs ?? 0) > 0) {
      this.#counters.fault('trickled');
      writeTrickle(res, body, fault.trickleMs ?? 0, this.#timers);
      return;
    }
    if (fault.kind === 'truncate') {
      this.#counters.fault('truncated');
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
      return;
    }
    res.end(body);
  }
}

import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { Rng, mix } from './prng.js';

/** What a delivery announces; callsync reads none of it but the business (and the event, when mapped to a stream). */
type WebhookEvent = 'call.created' | 'call.updated' | 'call.deleted' | 'voicemail.created' | 'voicemail.deleted';

/**
 * The simulator as a webhook sender (`SimulatorOptions.webhooks`, `--webhooks URL`). The spec
 * names webhooks but no scheme, so it signs the way callsync's defaults read (docs/operations.md "Webhooks"):
 * `X-Webhook-Timestamp` = Unix seconds, `X-Webhook-Signature` = hex HMAC-SHA256 of `timestamp.body`.
 */
export interface WebhookSenderOptions {
  /** Deliveries go to `{url}/{business}`, or to `url` itself with `businessField`. */
  url: string;
  /** One secret for every business, or one per business name. */
  secret: string | Readonly<Record<string, string>>;
  /** Put the business in this payload field and post to `url` as is. @defaultValue undefined (in the path) */
  businessField?: string;
  /** @defaultValue 'x-webhook-signature' */
  signatureHeader?: string;
  /** @defaultValue 'sha256' */
  algorithm?: 'sha256' | 'sha1';
  /** @defaultValue 'hex' */
  encoding?: 'hex' | 'base64';
  /** Text before the digest. @defaultValue '' */
  prefix?: string;
  /** false: the body alone is signed. @defaultValue 'x-webhook-timestamp' */
  timestampHeader?: string | false;
  /** Each delivery leaves after a delay drawn from this range (ms). @defaultValue { min: 0, max: 0 } */
  delayMs?: { min: number; max: number };
  /** Share of deliveries sent twice (the copy after its own delay). @defaultValue 0 */
  duplicateRate?: number;
  /** Share of deliveries held back by `reorderHoldMs`, so later ones overtake them. @defaultValue 0 */
  reorderRate?: number;
  /** @defaultValue 500 */
  reorderHoldMs?: number;
  /** Share of deliveries never sent. @defaultValue 0 */
  dropRate?: number;
}

/** What the sender did (`simulator.webhookCounters()`). */
export interface WebhookCounters {
  /** Deliveries the simulator meant to send (one per record event). */
  events: number;
  dropped: number;
  duplicated: number;
  /** HTTP requests sent, copies included. */
  sent: number;
  /** Answers by status; `error` when none came back. */
  byStatus: Record<string, number>;
}

export class WebhookSender {
  #options: WebhookSenderOptions;
  readonly #rng: Rng;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #inFlight = new Set<Promise<void>>();
  #counters: WebhookCounters = { events: 0, dropped: 0, duplicated: 0, sent: 0, byStatus: {} };
  #sequence = 0;
  #closed = false;

  constructor(options: WebhookSenderOptions, seed: number) {
    this.#options = options;
    this.#rng = new Rng(mix(seed, 0x3b00c));
  }

  /** One delivery per record, each with its own delay, copy, hold-back or drop. */
  emit(business: string, event: WebhookEvent, count = 1): void {
    for (let i = 0; i < count; i++) this.#plan(business, event);
  }

  /** Changes settings from the next delivery planned (e.g. the receiver's URL once `run` has a port). */
  set(options: Partial<WebhookSenderOptions>): void {
    this.#options = { ...this.#options, ...options };
  }

  counters(): WebhookCounters {
    return structuredClone(this.#counters);
  }

  resetCounters(): void {
    this.#counters = { events: 0, dropped: 0, duplicated: 0, sent: 0, byStatus: {} };
  }

  /** Resolves when every planned delivery has been answered (or has failed). */
  async settled(): Promise<void> {
    while (this.#timers.size > 0 || this.#inFlight.size > 0) {
      await Promise.allSettled([...this.#inFlight]);
      if (this.#timers.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Cancels planned deliveries and waits for those in flight. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#inFlight]);
  }

  #plan(business: string, event: WebhookEvent): void {
    const o = this.#options;
    this.#counters.events += 1;
    if (this.#closed || this.#rng.chance(o.dropRate ?? 0)) {
      this.#counters.dropped += 1;
      return;
    }
    this.#sequence += 1;
    const payload = { id: `evt_${this.#sequence}_${this.#rng.hex(8)}`, event, business, occurred_at: new Date().toISOString() };
    const copies = this.#rng.chance(o.duplicateRate ?? 0) ? 2 : 1;
    if (copies === 2) this.#counters.duplicated += 1;
    const held = this.#rng.chance(o.reorderRate ?? 0) ? (o.reorderHoldMs ?? 500) : 0;
    for (let copy = 0; copy < copies; copy++) {
      const delay = this.#rng.int(o.delayMs?.min ?? 0, o.delayMs?.max ?? 0) + held;
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        const sending = this.#send(business, payload).finally(() => this.#inFlight.delete(sending));
        this.#inFlight.add(sending);
      }, delay);
      this.#timers.add(timer);
    }
  }

  async #send(business: string, payload: Record<string, string>): Promise<void> {
    const o = this.#options;
    const secret = typeof o.secret === 'string' ? o.secret : o.secret[business];
    const body = JSON.stringify(o.businessField === undefined ? payload : { ...payload, [o.businessField]: business });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const timestampHeader = o.timestampHeader ?? 'x-webhook-timestamp';
    // Signed when it leaves, as a real sender does: a delivery held back still carries a fresh time.
    const timestamp = String(Math.floor(Date.now() / 1000));
    if (timestampHeader !== false) headers[timestampHeader] = timestamp;
    if (secret !== undefined) {
      const content = timestampHeader === false ? body : `${timestamp}.${body}`;
      headers[o.signatureHeader ?? 'x-webhook-signature'] = `${o.prefix ?? ''}${createHmac(o.algorithm ?? 'sha256', secret)
        .update(content)
        .digest(o.encoding ?? 'hex')}`;
    }
    const url = o.businessField === undefined ? `${o.url.replace(/\/+$/, '')}/${encodeURIComponent(business)}` : o.url;
    this.#counters.sent += 1;
    let status: string;
    try {
      const response = await request(url, { method: 'POST', body, headers, headersTimeout: 10_000, bodyTimeout: 10_000 });
      await response.body.dump();
      status = String(response.statusCode);
    } catch {
      status = 'error';
    }
    this.#counters.byStatus[status] = (this.#counters.byStatus[status] ?? 0) + 1;
  }
}

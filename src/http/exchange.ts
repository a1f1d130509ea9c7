import { EventEmitter } from 'node:events';
import { pipeline, Transform, type Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { Redact } from '../base/redact/index.js';

/** One attempt's request, built afresh for every attempt (a signature or a renewed credential changes). */
export interface ExchangeRequest {
  /** Origin, path and query. Only origin and path ever reach an error message. */
  readonly url: URL;
  readonly method: Dispatcher.HttpMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Status and headers of an answer, as undici gives them (lower-case names). */
export interface ExchangeHead {
  readonly status: number;
  readonly headers: Dispatcher.ResponseData['headers'];
}

/** An answer read in full within the deadline and the size bound (any status: deciding is the service's). */
export interface ExchangeResponse extends ExchangeHead {
  /** The whole body; with `overflow: 'cut'`, its first `maxBodyBytes`; empty when `streamed`. */
  readonly body: Buffer;
  /** True when the body went to the `streamBody` consumer, to its end, instead of into `body`. */
  readonly streamed?: true;
}

/**
 * How a body too large for memory is read (a recording on its way to storage): as a stream handed
 * to `consume`, within the attempt's deadline, counted as it flows: past `maxBytes` (or when the
 * declared `content-length` already says so) it fails with a `BodyTooLargeError`, and a body that
 * ends short of its declared length fails with a `BodyLengthError`.
 */
interface BodyStreaming {
  readonly maxBytes: number;
  /** Reads the stream to its end; a rejection fails the attempt with that error (and the body is destroyed). */
  consume(body: Readable): Promise<void>;
}

/** An attempt that produced no complete answer. */
interface ExchangeFailure {
  /** What was thrown: a network error, the deadline's or the caller's abort reason, a `BodyTooLargeError`, a truncated body's error. */
  readonly error: unknown;
  /** The whole-request deadline (`timeoutMs`) passed, and not because the caller cancelled. */
  readonly timedOut: boolean;
  /** The caller's `signal` was aborted. */
  readonly cancelled: boolean;
  /** Set when status and headers had arrived and the body then failed. */
  readonly head?: ExchangeHead;
  /** Set when nothing was sent: building the request failed (`error` is what `request` threw, e.g. a login that failed). */
  readonly unsent?: true;
}

/** What one attempt produced: the input of a service's `decide` hook. */
export type ExchangeOutcome = { readonly response: ExchangeResponse } | ExchangeFailure;

/**
 * A service's answer to one attempt, in the shape of undici's `RetryHandler` callback / Airbyte's
 * response action: take the result, send again after a wait, or fail with the service's error.
 */
export type ExchangeDecision<T> =
  | { readonly action: 'accept'; readonly value: T }
  /**
   * Send again. `waitMs` is slept first (abortably); `undefined` sends at once, for a wait the
   * `acquire` hook already holds (a rate limiter blocked until the reset).
   */
  | { readonly action: 'retry'; readonly waitMs: number | undefined }
  /** Give up: `send()` throws this error, its message run through `redact` first. */
  | { readonly action: 'fail'; readonly error: Error };

/**
 * Everything one exchange needs. A service brings only data (the request, the bounds) and two
 * hooks; the loop, the deadline, the bounded read and redaction are `send()`'s.
 */
export interface ExchangeOptions<T> {
  /** Shared per process; tests pass a `MockAgent`. */
  readonly dispatcher: Dispatcher;
  /** The request of attempt `attempt` (1 for the first). What it throws reaches `decide` as an `unsent` failure. */
  readonly request: (attempt: number) => ExchangeRequest | Promise<ExchangeRequest>;
  /**
   * What an attempt means and what comes next. Owns the service's policy: it classifies (with
   * `classifyHttp` and the service's `ServicePolicy`), counts attempts against its own limits,
   * feeds rate-limit headers back, logs. It may throw (an abort, a budget wait too long): `send()`
   * passes that on unchanged.
   */
  readonly decide: (outcome: ExchangeOutcome, attempt: number) => ExchangeDecision<T> | Promise<ExchangeDecision<T>>;
  /**
   * The budget: awaited before every attempt (a token from a rate limiter). May throw to give up
   * (a budget wait longer than the caller may hold its slot). @defaultValue none
   */
  readonly acquire?: (attempt: number) => Promise<void>;
  /** One deadline per attempt over headers AND body together (not an idle timeout), ms. */
  readonly timeoutMs: number;
  /** Largest body read; past it the attempt fails with a `BodyTooLargeError` (or is cut, see `overflow`). */
  readonly maxBodyBytes: number;
  /**
   * `fail`: a body over `maxBodyBytes` fails the attempt. `cut`: its first `maxBodyBytes` are kept
   * and the rest discarded unread (an answer whose head is all that is used). @defaultValue 'fail'
   */
  readonly overflow?: 'fail' | 'cut';
  /**
   * For an answer whose head says its body goes elsewhere than memory: how it is streamed there.
   * `undefined` reads the body as usual (`maxBodyBytes`, `overflow`). @defaultValue every body read into memory
   */
  readonly streamBody?: (head: ExchangeHead) => BodyStreaming | undefined;
  /** Scrubs the service's secrets from the message of every error `send()` throws. @defaultValue identity */
  readonly redact?: Redact;
  /** The caller's cancel: checked before every attempt, and ends a wait or a request in flight. */
  readonly signal?: AbortSignal | undefined;
  /** @defaultValue an abortable timer */
  readonly sleep?: Sleep;
}

/**
 * An attempt's abort in the form undici also takes (`signal` may be an `EventEmitter` with
 * `aborted`, `reason` and one 'abort' event). undici listens on every request's signal, and its
 * first listener on a fresh `AbortSignal` cost about 9 µs, more than the rest of our exchange.
 */
class AttemptAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/**
 * One abort per attempt, by its own timer or by the caller, both undone when the attempt ends.
 * Cheaper than `AbortSignal.timeout` + `AbortSignal.any` (a composite signal and a timer signal
 * per attempt, a large share of an idle poll's CPU), and it leaves nothing attached to the
 * caller's long-lived signal (`AbortSignal.any` over it leaked heap per job).
 */
function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number) {
  const signal = new AttemptAbort();
  let timedOut = false;
  const onCancel = (): void => signal.abort(caller?.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    // The reason AbortSignal.timeout gives, so what callers see of a deadline does not change.
    signal.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  timer.unref();
  if (caller?.aborted === true) signal.abort(caller.reason);
  else caller?.addEventListener('abort', onCancel, { once: true });
  return {
    signal,
    timedOut: () => timedOut,
    end: (): void => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCancel);
    },
  };
}

async function attemptOnce(request: ExchangeRequest, options: ExchangeOptions<unknown>): Promise<ExchangeOutcome> {
  const attempt = attemptSignal(options.signal, options.timeoutMs);
  try {
    return await exchangeOnce(request, options, attempt.signal, attempt.timedOut);
  } finally {
    attempt.end();
  }
}

async function exchangeOnce(
  request: ExchangeRequest,
  options: ExchangeOptions<unknown>,
  signal: AttemptAbort,
  deadlinePassed: () => boolean,
): Promise<ExchangeOutcome> {
  const caller = options.signal;
  const failed = (error: unknown, head?: ExchangeHead): ExchangeFailure => ({
    error,
    timedOut: deadlinePassed() && caller?.aborted !== true,
    cancelled: caller?.aborted === true,
    ...(head === undefined ? {} : { head }),
  });
  let answer: Dispatcher.ResponseData;
  try {
    answer = await options.dispatcher.request({
      origin: request.url.origin,
      path: `${request.url.pathname}${request.url.search}`,
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal,
    });
  } catch (error) {
    return failed(error);
  }
  const head: ExchangeHead = { status: answer.statusCode, headers: answer.headers };
  const streaming = options.streamBody?.(head);
  if (streaming !== undefined) {
    try {
      await streaming.consume(meteredBody(answer.body, streaming.maxBytes, answer.headers['content-length']));
      return { response: { ...head, body: Buffer.alloc(0), streamed: true } };
    } catch (error) {
      return failed(error, head);
    } finally {
      answer.body.destroy();
    }
  }
  try {
    const body =
      options.overflow === 'cut'
        ? await readBodyPrefix(answer.body, options.maxBodyBytes)
        : await readBoundedBody(answer.body, options.maxBodyBytes, answer.headers['content-length']);
    return { response: { ...head, body } };
  } catch (error) {
    return failed(error, head);
  }
}

// Builds and sends one attempt; a failure to build the request (a login that failed) is an outcome for decide too.
async function sendOnce(options: ExchangeOptions<unknown>, attempt: number): Promise<ExchangeOutcome> {
  let request: ExchangeRequest;
  try {
    request = await options.request(attempt);
  } catch (error) {
    return { error, timedOut: false, cancelled: options.signal?.aborted === true, unsent: true };
  }
  return attemptOnce(request, options);
}

/**
 * The one HTTP exchange of callsync, and its one retry loop: before every attempt awaits the
 * budget (`acquire`), sends `request(attempt)`, reads the whole answer within one deadline and one
 * size bound, and hands the outcome to the service's `decide`, which accepts it, asks for another
 * attempt after a wait, or fails. A failure is thrown with its message redacted.
 * @throws the `decide` hook's error (an `HttpError` of the service); whatever `acquire` or `decide`
 * throws; the abort reason when `signal` is aborted before an attempt or during a wait
 */
export async function send<T>(options: ExchangeOptions<T>): Promise<T> {
  const sleep = options.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt += 1) {
    options.signal?.throwIfAborted();
    await options.acquire?.(attempt);
    const outcome = await sendOnce(options, attempt);
    const decision = await options.decide(outcome, attempt);
    if (decision.action === 'accept') return decision.value;
    if (decision.action === 'fail') {
      if (options.redact !== undefined) decision.error.message = options.redact(decision.error.message);
      throw decision.error;
    }
    if (decision.waitMs !== undefined) await sleep(decision.waitMs, options.signal);
  }
}

// The bounded body read

/** A body passed its size bound; reading stopped there. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  readonly code = 'BODY_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`body larger than ${maxBytes} bytes (maxBodyBytes): not read further`);
  }
}

/** A streamed body ended before the length its `content-length` declared. */
export class BodyLengthError extends Error {
  override readonly name = 'BodyLengthError';
  readonly code = 'BODY_LENGTH_MISMATCH';
  constructor(
    readonly declared: number,
    readonly received: number,
  ) {
    super(`body of ${received} bytes where content-length declared ${declared}`);
  }
}

/** A response body as undici gives it. */
interface BodyStream extends AsyncIterable<Uint8Array> {
  destroy(error?: Error): unknown;
}

/**
 * Reads a body to its end, counting bytes as they stream in: past `maxBytes` (or when the declared
 * `content-length` already says so) it destroys the stream and throws `BodyTooLargeError`, so no
 * more than `maxBytes` is ever held.
 */
async function readBoundedBody(body: BodyStream, maxBytes: number, contentLength?: string | string[]): Promise<Buffer> {
  const declared = declaredLength(contentLength);
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw new BodyTooLargeError(maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      body.destroy();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The `content-length` an answer declared; NaN when none (or not a number). */
function declaredLength(contentLength: string | string[] | undefined): number {
  return Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
}

/**
 * The sanctioned streaming read: the body's chunks passed on as they arrive, counted, never held:
 * past `maxBytes` (or a declared `content-length` over it) the stream is destroyed with a
 * `BodyTooLargeError`; a body that ends short of (or past) its declared length is a `BodyLengthError`.
 */
function meteredBody(body: BodyStream, maxBytes: number, contentLength?: string | string[]): Readable {
  const declared = declaredLength(contentLength);
  let size = 0;
  // A Transform piped from the body, not an async generator wrapped in `Readable.from`: two promises
  // and a copy of what the body had buffered per chunk cost a quarter more CPU than the copy to disk itself.
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.byteLength;
      done(size > maxBytes ? new BodyTooLargeError(maxBytes) : null, chunk);
    },
    flush(done) {
      done(Number.isFinite(declared) && size !== declared ? new BodyLengthError(declared, size) : null);
    },
  });
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    meter.destroy(new BodyTooLargeError(maxBytes));
    return meter;
  }
  // The body's own failure (a reset, the deadline) reaches the reader as the meter's error; a
  // failure of the meter (a size bound) or its reader destroys the body, so nothing more is read.
  pipeline(body, meter, () => undefined);
  return meter;
}

/**
 * Reads at most `maxBytes` of a body and discards the rest unread (the stream is destroyed): for an
 * answer whose first bytes are all that is used (a webhook receiver's acknowledgement).
 */
async function readBodyPrefix(body: BodyStream, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size >= maxBytes) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks, size).subarray(0, maxBytes);
}

// The wait between attempts

/** Waits `ms`; rejects with the signal's reason when aborted. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

// Node fires a longer timer after 1 ms (TimeoutOverflowWarning): a huge wait would become a busy loop.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The one sleep of the HTTP clients: abortable, and never shorter than asked for a huge `ms`. */
export const abortableSleep: Sleep = async (ms, signal) => {
  let left = Math.max(0, ms);
  do {
    const step = Math.min(left, MAX_TIMER_MS);
    await delay(step, undefined, signal ? { signal } : {});
    left -= step;
  } while (left > 0);
};

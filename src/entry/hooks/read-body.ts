import type { IncomingMessage, ServerResponse } from 'node:http';

/** How reading a body ended: all of it, or why not. */
type BodyEnd = 'done' | 'too_large' | 'timeout' | 'aborted' | 'busy';

interface BodyReading {
  readonly maxBytes: number;
  /** From the start of the read; past it the read ends as `timeout`. */
  readonly deadlineMs: number;
  /** Each chunk as it arrives (the signature is computed while reading). */
  readonly onChunk: (chunk: Buffer) => void;
  /** Asked with the total so far before a chunk is kept; false: the byte budget is spent. Absent: nothing is kept. */
  readonly keep?: ((total: number) => boolean) | undefined;
}

const EMPTY = Buffer.alloc(0);

/**
 * Reads a body within a size, a deadline and the byte budget, keeping it only when asked. Never
 * rejects: a sender that goes away is `aborted`, a reason to count, not an error. On any end but
 * `done` the request is left paused, for the answer to drain or cut.
 */
export function readBody(req: IncomingMessage, reading: BodyReading): Promise<{ readonly end: BodyEnd; readonly body: Buffer }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (end: BodyEnd): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onAbort);
      if (end !== 'done') req.pause();
      resolve({ end, body: end === 'done' ? Buffer.concat(chunks, size) : EMPTY });
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > reading.maxBytes) return finish('too_large');
      if (reading.keep !== undefined) {
        if (!reading.keep(size)) return finish('busy');
        chunks.push(chunk);
      }
      reading.onChunk(chunk);
    };
    const onEnd = (): void => finish('done');
    const onAbort = (): void => finish('aborted');
    const timer = setTimeout(() => finish('timeout'), reading.deadlineMs);
    // An abort also comes as 'error'; 'close' before 'end' says it, and this listener keeps it from being unhandled.
    req.on('error', () => undefined);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onAbort);
    if (req.destroyed) finish('aborted');
  });
}

/**
 * Sends a whole answer, then reads the rest of the request and throws it away before ending the
 * exchange, up to `capBytes` or `capMs` (past either the connection is cut): a sender still
 * writing its body then reads the answer instead of a broken pipe, which closing with unread bytes
 * (a TCP reset) would give it. nginx's lingering close, in short. With `close` the connection
 * ends after it; else it stays open for the sender's next request once the body is drained.
 */
export function answerThenDrain(
  req: IncomingMessage,
  res: ServerResponse,
  answer: { readonly status: number; readonly headers: Readonly<Record<string, string | number>>; readonly body: string; readonly close: boolean },
  limits: { readonly capBytes: number; readonly capMs: number },
): void {
  res.writeHead(answer.status, answer.close ? { ...answer.headers, connection: 'close' } : answer.headers);
  if (req.readableEnded) return void res.end(answer.body);
  // The answer leaves now; ending it (which may close the connection) waits for the body's end.
  res.write(answer.body);
  let seen = 0;
  const done = (cut: boolean): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
    res.end();
    if (cut) req.socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen > limits.capBytes) done(true);
  };
  const onEnd = (): void => done(false);
  const onClose = (): void => done(false);
  const timer = setTimeout(() => done(true), limits.capMs);
  req.on('error', () => undefined);
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('close', onClose);
  req.resume();
}

/** Answers and cuts the connection at once: for a sender that stalled, waiting longer helps nobody. */
export function answerThenCut(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string | number>>,
  body: string,
): void {
  res.writeHead(status, { ...headers, connection: 'close' });
  res.end(body, () => req.socket.destroy());
}

/** The value at a dotted path of a JSON object (`event.type`), as text when it is a string or number. */
export function fieldText(payload: unknown, path: string): string | undefined {
  let value: unknown = payload;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  if (typeof value === 'string' && value !== '') return value;
  return typeof value === 'number' ? String(value) : undefined;
}

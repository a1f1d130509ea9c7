import type { IncomingMessage } from 'node:http';

/** The raw body, or `too_large` as soon as it passes `maxBytes` (nothing past the limit is kept). */
export function readBoundedBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', reject);
      resolve('too_large');
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks, size));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', reject);
  });
}

/**
 * After an early refusal, the rest of the body is read and thrown away (so the sender, still
 * writing, gets the answer rather than a broken pipe), but only up to `capBytes` or `capMs`; past
 * either the connection is cut. nginx's lingering close, in short.
 */
export function discardRest(req: IncomingMessage, capBytes: number, capMs: number): void {
  if (req.readableEnded) return;
  let seen = 0;
  const cut = (): void => void req.socket.destroy();
  const timer = setTimeout(cut, capMs);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > capBytes) {
      clearTimeout(timer);
      cut();
    }
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
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

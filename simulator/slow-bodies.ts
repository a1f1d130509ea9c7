import type { ServerResponse } from 'node:http';

const CHUNK_BYTES = 64 * 1024;
/** Whitespace between JSON tokens: a huge body stays valid JSON whatever its size. */
const BLANKS = Buffer.alloc(CHUNK_BYTES, 0x20);

/** Where a list's records go in a huge body: the JSON before and after them. */
export interface HugeEnvelope {
  head: string;
  tail: string;
}

export const HUGE_ENVELOPES: Readonly<Record<string, HugeEnvelope>> = {
  '/calls': { head: '{"data":{"calls":[', tail: '],"total":0,"has_more":false}}' },
  '/sms': { head: '{"messages":[', tail: '],"total":0}' },
  '/api/all/voicemails': { head: '{"voicemail":[', tail: ']}' },
  '/api/all/calls': { head: '{"calls":[', tail: ']}' },
};

/**
 * Streams a 200 of exactly `bytes` bytes (at least the envelope) in 64 KiB chunks, waiting for
 * `drain`, so the simulator never holds the body; stops when the client goes away.
 */
export function writeHugeBody(
  res: ServerResponse,
  headers: Record<string, string>,
  bytes: number,
  declared: boolean,
  envelope: HugeEnvelope,
  written: (bytes: number) => void,
): void {
  let left = Math.max(0, bytes - Buffer.byteLength(envelope.head) - Buffer.byteLength(envelope.tail));
  const length = declared ? { 'content-length': String(left + Buffer.byteLength(envelope.head) + Buffer.byteLength(envelope.tail)) } : {};
  res.writeHead(200, { ...headers, 'content-type': 'application/json; charset=utf-8', ...length });
  res.write(envelope.head);
  const pump = (): void => {
    while (left > 0) {
      if (res.destroyed) return;
      const n = Math.min(left, CHUNK_BYTES);
      left -= n;
      written(n);
      if (!res.write(n === CHUNK_BYTES ? BLANKS : BLANKS.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    res.end(envelope.tail);
  };
  pump();
}

/**
 * Sends headers (with the true `Content-Length`) at once, then one byte of `body` every `everyMs`.
 * Pending timers live in `timers`, so closing the simulator stops every trickle.
 */
export function writeTrickle(res: ServerResponse, body: Buffer, everyMs: number, timers: Set<NodeJS.Timeout>): void {
  res.flushHeaders();
  let next = 0;
  const step = (): void => {
    if (res.destroyed || next >= body.length) {
      if (!res.destroyed) res.end();
      return;
    }
    res.write(body.subarray(next, next + 1));
    next++;
    const timer = setTimeout(() => {
      timers.delete(timer);
      step();
    }, everyMs);
    timers.add(timer);
  };
  step();
}

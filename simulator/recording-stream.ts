import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** How a recording's body goes out. */
export interface BodyPlan {
  /** The body, generated as it is taken. */
  chunks: Iterator<Buffer>;
  /** At most this many bytes per second; 0 as fast as the client reads. */
  bytesPerSecond: number;
  /** Close the connection once this many body bytes are out (a download that fails mid-body); undefined never. */
  closeAfterBytes: number | undefined;
}

/** Resolves when the socket can take more, or the client has gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/**
 * Streams a body with backpressure: never more than one chunk waits in memory, whatever the size,
 * and it stops when the client hangs up (or the simulator closes its connections). `written`
 * counts the bytes handed to the socket.
 */
export async function streamBody(res: ServerResponse, plan: BodyPlan, written: (bytes: number) => void): Promise<void> {
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  const started = Date.now();
  const piece = plan.bytesPerSecond > 0 ? Math.max(1, Math.floor(plan.bytesPerSecond / 10)) : Number.POSITIVE_INFINITY;
  let sent = 0;
  try {
    for (let next = plan.chunks.next(); next.done !== true; next = plan.chunks.next()) {
      let chunk = next.value;
      while (chunk.length > 0) {
        if (res.destroyed) return;
        let part = chunk.length > piece ? chunk.subarray(0, piece) : chunk;
        chunk = chunk.subarray(part.length);
        const cut = plan.closeAfterBytes !== undefined && sent + part.length >= plan.closeAfterBytes;
        if (cut) part = part.subarray(0, Math.max(0, (plan.closeAfterBytes ?? 0) - sent));
        if (plan.bytesPerSecond > 0) {
          // Paced by the time the bytes sent so far are due, so timer slack does not add up.
          const due = started + (sent * 1000) / plan.bytesPerSecond - Date.now();
          if (due > 0) await sleep(due, undefined, { signal: gone.signal });
        }
        sent += part.length;
        written(part.length);
        if (cut) {
          // Closed once the bytes are flushed, so the client receives exactly that many.
          res.write(part, () => res.destroy());
          return;
        }
        if (!res.write(part)) await drained(res);
      }
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    if (!gone.signal.aborted) throw error;
  }
}

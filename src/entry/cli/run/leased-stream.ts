import type { Logger } from 'pino';
import type { KeySpace, RedisClient } from '../../../base/redis/index.js';
import { sinkLockKey, StreamLeases } from '../../../engine/lease/stream-lease.js';
import type { StreamExclusive } from '../recordings/resend-archived.js';

interface LeasedStreamOptions {
  readonly redis: RedisClient;
  readonly space: KeySpace;
  /** The sink's name in stream locks (`describeSink(config.sink).lockName`), the one every sync takes. */
  readonly sinkLockName: string;
  /** `worker.lockDurationMs`: the lease's expiry, renewed while held. */
  readonly ttlMs: number;
  readonly logger: Logger;
}

/**
 * A write outside a sync (the archive's rewrite of archived calls) under the same stream lease a
 * sync takes (`{base}:lock:{sink}:{business}:{stream}`), so it never runs beside a sync, a
 * reconciliation or a backfill of that business × stream in this sink. A held lease is not waited
 * for: the caller leaves the work for later. Lost meanwhile (Redis away past the expiry): `held`
 * is aborted, so the write stops before its next page.
 */
export function leasedStream(options: LeasedStreamOptions): StreamExclusive {
  return async (business, stream, write) => {
    const held = new AbortController();
    const leases = new StreamLeases({
      redis: options.redis,
      ttlMs: options.ttlMs,
      command: 'run',
      onLost: () => {
        options.logger.error({ business, stream }, 'stream lock lost; stopping the rewrite of archived calls after the page in flight');
        held.abort(new Error('stream lock lost'));
      },
    });
    const key = sinkLockKey(options.space, options.sinkLockName, business, stream);
    const busy = await leases.take([key]);
    if (busy.size > 0) return false;
    try {
      await write(held.signal);
      return true;
    } finally {
      await leases.release();
    }
  };
}

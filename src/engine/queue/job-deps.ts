import type { Logger } from 'pino';
import type { CallsyncConfig } from '../../config/index.js';
import type { RateLimiter } from '../../source/ratelimit/index.js';
import type { RedisClient } from '../../base/redis/index.js';
import type { CallsyncMetrics } from '../metrics/index.js';
import type { FailedBusinesses, StatusStore } from '../state/index.js';
import type { Sink } from '../../sink/sink.js';
import type { BusinessPlan } from '../sync/business-plan.js';
import type { UpstreamClient } from '../../source/upstream/index.js';
import type { QueueKeys } from './names.js';

/** Everything a sync job needs; built once per process by `startRunWorker`. */
export interface SyncJobDeps {
  readonly config: CallsyncConfig;
  /** Plans of the configured businesses, by name. */
  readonly plans: ReadonlyMap<string, BusinessPlan>;
  /** Config hash of each business, stored with a failure mark. */
  readonly configHashes: ReadonlyMap<string, string>;
  /** The business's upstream client (one per business, sharing one agent). */
  readonly client: (plan: BusinessPlan) => UpstreamClient;
  readonly sink: Sink;
  /**
   * The sink's name in stream locks (`describeSink(config.sink).lockName`): one writer per sink ×
   * business × stream, whether the other is a replica's job or a backfill.
   */
  readonly sinkLockName: string;
  readonly limiter: RateLimiter;
  readonly redis: RedisClient;
  readonly keys: QueueKeys;
  readonly failed: FailedBusinesses;
  readonly statusStore: StatusStore;
  readonly metrics: CallsyncMetrics;
  readonly logger: Logger;
  /** Aborted on SIGTERM/SIGINT: jobs stop after the page in flight is stored. */
  readonly shutdown: AbortSignal;
  /**
   * Runs after a stream synced, while its lease is still held: writes that must not race a sync
   * of the stream (the recordings archive's rewrite of archived calls) run here. Must not throw.
   * @defaultValue none
   */
  readonly afterStreamSynced?: (business: string, stream: string) => Promise<void>;
}

/** How one stream of a business job ended. */
export type StreamOutcome =
  | { readonly stream: string; readonly outcome: 'synced'; readonly pages: number; readonly records: number; readonly written: number }
  | { readonly stream: string; readonly outcome: 'reconciled'; readonly drift: string | null }
  | { readonly stream: string; readonly outcome: 'busy' | 'failed' };

/** What a finished job reports (its return value; BullMQ deletes completed jobs at once). */
export type SyncJobResult =
  { readonly outcome: 'done'; readonly streams: readonly StreamOutcome[] } | { readonly outcome: 'business_failed' | 'not_configured' };

import type { BusinessStatus, StatusSnapshot, StreamStatus } from '../../server/index.js';
import type { Checkpoint } from '../../sink.js';

export interface ConfiguredStream {
  readonly business: string;
  readonly stream: string;
  readonly checkpoint: Checkpoint | undefined;
}

/**
 * Adds the configured streams no worker has reported (a `backfill`-only deployment, or Redis
 * without history) from the sink's checkpoints, so the view covers the whole config.
 */
export function withCheckpoints(snapshot: StatusSnapshot, configured: readonly ConfiguredStream[]): StatusSnapshot {
  const businesses = new Map<string, BusinessStatus>(snapshot.businesses.map((business) => [business.name, business]));
  for (const { business, stream, checkpoint } of configured) {
    const entry = businesses.get(business) ?? { name: business, failed: null, streams: [], activity: [] };
    if (entry.streams.some((status) => status.stream === stream)) continue;
    const status: StreamStatus = {
      business,
      stream,
      state: 'idle',
      lastSuccessAt: null,
      lastRunAt: null,
      lagSeconds: null,
      recordsSynced: checkpoint?.recordsSynced ?? 0,
      pages: 0,
      deadLetters: 0,
      lastError: checkpoint === undefined ? 'never synced' : null,
      warning: null,
      budget: null,
      updatedAt: snapshot.generatedAt,
    };
    businesses.set(business, { ...entry, streams: [...entry.streams, status] });
  }
  return { ...snapshot, businesses: [...businesses.values()].sort((a, b) => a.name.localeCompare(b.name)) };
}

import { emptyStatus, type BusinessStatus, type StatusSnapshot, type StreamStatus } from '../../state/index.js';
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
      ...emptyStatus(business, stream, snapshot.generatedAt),
      lagSeconds: null,
      recordsSynced: checkpoint?.recordsSynced ?? 0,
      lastError: checkpoint === undefined ? 'never synced' : null,
    };
    businesses.set(business, { ...entry, streams: [...entry.streams, status] });
  }
  return { ...snapshot, businesses: [...businesses.values()].sort((a, b) => a.name.localeCompare(b.name)) };
}

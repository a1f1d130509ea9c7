import { emptyStatus, type BusinessStatus, type StatusSnapshot, type StreamStatus } from '../../../engine/state/index.js';
import type { Checkpoint } from '../../../sink/sink.js';
import { summarizePosition } from '../../../source/walkers/index.js';

export interface ConfiguredStream {
  readonly business: string;
  readonly stream: string;
  readonly checkpoint: Checkpoint | undefined;
}

/**
 * Completes the view from the sink's checkpoints: every configured stream gets what its stored
 * position says of the walk (detected order, a deep walk under way, a server's page cap), and the
 * streams no worker has reported (a `backfill`-only deployment, or Redis without history) are
 * added, so the view covers the whole config.
 */
export function withCheckpoints(snapshot: StatusSnapshot, configured: readonly ConfiguredStream[]): StatusSnapshot {
  const businesses = new Map<string, BusinessStatus>(snapshot.businesses.map((business) => [business.name, business]));
  for (const { business, stream, checkpoint } of configured) {
    const entry = businesses.get(business) ?? { name: business, failed: null, streams: [], activity: [] };
    const walk = summarizePosition(checkpoint?.position);
    const reported = entry.streams.find((status) => status.stream === stream);
    const status: StreamStatus = reported
      ? // The sink's count covers every writer (a backfill too); a worker's count only what it wrote since its status began.
        { ...reported, walk, recordsSynced: Math.max(reported.recordsSynced, checkpoint?.recordsSynced ?? 0) }
      : {
          ...emptyStatus(business, stream, snapshot.generatedAt),
          lagSeconds: null,
          recordsSynced: checkpoint?.recordsSynced ?? 0,
          lastError: checkpoint === undefined ? 'never synced' : null,
          walk,
        };
    const streams = reported ? entry.streams.map((s) => (s === reported ? status : s)) : [...entry.streams, status];
    businesses.set(business, { ...entry, streams });
  }
  return { ...snapshot, businesses: [...businesses.values()].sort((a, b) => a.name.localeCompare(b.name)) };
}

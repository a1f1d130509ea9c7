import { storedIdPages, type Sink } from '../sink.js';
import { chunk } from '../sync/to-batch.js';
import { decodeDeletions, deletionsStream, encodeDeletions } from './deletion-checkpoint.js';
import { rawId, type ReconcileStore } from './reconcile-store.js';

/** The checkpoint a repair walk keeps, beside the stream's own (`{stream}:repair`). */
const repairStream = (stream: string): string => `${stream}:repair`;

/** Dead letters read per stream; they are rare, and more than this many means a stream needs an operator anyway. */
const DEAD_LETTER_READ = 100_000;

/**
 * Reconciliation's view of a sink. Records are stored with the stream's current position, so a
 * repair never moves where the next sync starts; the repair walk keeps its own checkpoint; a stream that never synced has no position yet,
 * and its first sync will fetch everything, so nothing is stored for it here.
 */
export function sinkReconcileStore(sink: Sink): ReconcileStore {
  return {
    count: (businessId, descriptor) => sink.records.count(businessId, descriptor.table),
    ids: (businessId, descriptor) => storedIdPages(sink.records, businessId, descriptor.table),
    markDeleted: (businessId, descriptor, ids) => sink.records.markDeleted(businessId, descriptor.table, ids),
    async store(businessId, descriptor, records) {
      const checkpoint = await sink.checkpoints.load(businessId, descriptor.name);
      if (checkpoint === undefined) return 0;
      let written = 0;
      for (const part of chunk(records, sink.capabilities.maxBatchSize)) {
        written += (await sink.write({ businessId, table: descriptor.table, records: part, deadLetters: [] }, checkpoint.position)).written;
      }
      return written;
    },
    async loadRepairWalk(businessId, descriptor) {
      const walk = (await sink.checkpoints.load(businessId, repairStream(descriptor.name)))?.position.walk;
      return walk !== null && typeof walk === 'object' && !Array.isArray(walk) ? walk : undefined;
    },
    saveRepairWalk: (businessId, descriptor, position) =>
      sink.checkpoints.save({ businessId, stream: repairStream(descriptor.name), position: { walk: position }, recordsSynced: 0 }),
    async loadDeletions(businessId, descriptor) {
      const stream = deletionsStream(descriptor.name);
      return decodeDeletions((await sink.checkpoints.load(businessId, stream))?.position, `${businessId}/${stream}`);
    },
    saveDeletions: (businessId, descriptor, state) =>
      sink.checkpoints.save({ businessId, stream: deletionsStream(descriptor.name), position: encodeDeletions(state), recordsSynced: 0 }),
    async deadLetterIds(businessId, descriptor) {
      const letters = await sink.deadLetters.list({ businessId, stream: descriptor.name, limit: DEAD_LETTER_READ });
      return new Set(letters.flatMap((letter) => rawId(letter.raw) ?? []));
    },
  };
}

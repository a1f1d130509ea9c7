import { checkStream } from './check-stream.js';
import { repairStream, type RepairStreamOptions } from './repair-stream.js';
import type { StreamCheck } from './stream-check.js';
import { isVerifiable } from './upstream-total.js';

export interface ReconcileStreamOptions extends Omit<RepairStreamOptions, 'repair'> {
  /**
   * `count`: compare counts only (at most one request); `walk`: also compare ids over the whole
   * list, whatever the counts say; `repair`: walk and fix what the ids show.
   */
  readonly mode: 'count' | 'walk' | 'repair';
  /** Upstream's total when already known (the last page of a run carried it). */
  readonly knownTotal?: number;
}

/**
 * Reconciles one business × stream. Streams without an upstream count (v2) are reported as not
 * verifiable and never walked: without a count, no walk can prove a record was deleted.
 */
export async function reconcileStream(options: ReconcileStreamOptions): Promise<StreamCheck> {
  if (options.mode === 'count' || !isVerifiable(options.descriptor)) return checkStream(options);
  return repairStream({ ...options, repair: options.mode === 'repair' });
}

import { normalizePage } from '../../normalize/index.js';
import type { Sink, StoredDeadLetter } from '../../sink/sink.js';
import type { BusinessPlan } from './business-plan.js';

interface ReplayOutcome {
  readonly id: number;
  readonly business: string;
  readonly stream: string;
  /** `stored`: normalized and written, the dead letter removed; `still-failing`: kept with attempts bumped; `skipped`: its business or stream is no longer configured. */
  readonly result: 'stored' | 'still-failing' | 'skipped';
  readonly reason?: string;
}

/**
 * Gives dead letters another go with today's normalizers and config (a fixed time zone, a newer
 * release): each is normalized again and, if it now passes and the sink takes it, written with the
 * stream's current checkpoint unchanged and removed. One record per write, so one that fails again
 * never holds back the rest.
 */
export async function replayDeadLetters(deadLetters: readonly StoredDeadLetter[], plans: readonly BusinessPlan[], sink: Sink): Promise<ReplayOutcome[]> {
  const outcomes: ReplayOutcome[] = [];
  for (const letter of deadLetters) {
    const plan = plans.find((candidate) => candidate.name === letter.businessId);
    const descriptor = plan?.streams.find((stream) => stream.name === letter.stream);
    const base = { id: letter.id, business: letter.businessId, stream: letter.stream };
    if (plan === undefined || descriptor === undefined) {
      outcomes.push({ ...base, result: 'skipped', reason: 'business or stream not in the config' });
      continue;
    }
    const page = normalizePage([letter.raw], descriptor.normalize, plan.normalizeContext, letter.businessId, letter.stream, descriptor.source);
    const checkpoint = await sink.checkpoints.load(letter.businessId, letter.stream);
    const result = await sink.write(
      { businessId: letter.businessId, table: descriptor.table, records: page.records, deadLetters: page.deadLetters },
      checkpoint?.position ?? {},
    );
    if (page.records.length === 1 && result.deadLettered === 0) {
      await sink.deadLetters.remove([letter.id]);
      outcomes.push({ ...base, result: 'stored' });
    } else {
      outcomes.push({ ...base, result: 'still-failing', reason: page.deadLetters[0]?.reason ?? 'the target refused it again' });
    }
  }
  return outcomes;
}

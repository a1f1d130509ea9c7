import type { CallsyncConfig } from '../../../config/index.js';
import type { Sink } from '../../../sink/sink.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import { planBusinesses, type PlanFilter } from '../../../engine/sync/plan-businesses.js';

/** What a one-shot command (backfill, reconcile) runs over: the config, the selected plans and the open sink. */
export interface OneShotRun {
  readonly config: CallsyncConfig<unknown>;
  readonly plans: readonly BusinessPlan[];
  readonly sink: Sink;
  /** Stops the run between pages (SIGINT, SIGTERM). */
  readonly signal?: AbortSignal;
}

/**
 * The plans a one-shot command works on. A filter that matches nothing is the operator's typo,
 * not an empty success: it is said on stderr and the exit code is 2.
 * @returns undefined when nothing matched
 */
export function selectPlans(config: CallsyncConfig, file: string, filter: PlanFilter, verb: string): BusinessPlan[] | undefined {
  const plans = planBusinesses(config, filter);
  if (plans.length > 0 && plans.some((plan) => plan.streams.length > 0)) return plans;
  process.stderr.write(
    `${file}: nothing to ${verb} for --business ${filter.business ?? '*'} --stream ${filter.stream ?? '*'}; ${configured(config, filter)}\n`,
  );
  process.exitCode = 2;
  return undefined;
}

/** Names what is configured, so the typo is obvious. */
function configured(config: CallsyncConfig, filter: PlanFilter): string {
  const business = config.businesses.find((b) => b.name === filter.business);
  if (filter.business !== undefined && business === undefined) return `configured businesses: ${config.businesses.map((b) => b.name).join(', ')}`;
  const streams = [...new Set((business === undefined ? config.businesses : [business]).flatMap((b) => b.streams))];
  return `configured streams${business === undefined ? '' : ` of ${business.name}`}: ${streams.join(', ')}`;
}

import type { CallsyncConfig } from '../config/index.js';
import type { BusinessPlan } from '../sync/business-plan.js';
import { planBusinesses, type PlanFilter } from '../sync/plan-businesses.js';

/**
 * The plans a one-shot command works on. A filter that matches nothing is the operator's typo,
 * not an empty success: it is said on stderr and the exit code is 2.
 * @returns undefined when nothing matched
 */
export function selectPlans(config: CallsyncConfig, file: string, filter: PlanFilter, verb: string): BusinessPlan[] | undefined {
  const plans = planBusinesses(config, filter);
  if (plans.length > 0 && plans.some((plan) => plan.streams.length > 0)) return plans;
  process.stderr.write(`${file}: nothing to ${verb} for --business ${filter.business ?? '*'} --stream ${filter.stream ?? '*'}\n`);
  process.exitCode = 2;
  return undefined;
}

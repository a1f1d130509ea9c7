import type { CallsyncConfig } from '../../config/index.js';
import { builtinStreams } from '../../source/streams/builtin-streams.js';
import type { BusinessPlan } from './business-plan.js';
import { customStream } from '../../source/streams/custom-streams.js';
import { withDeclaredTableColumns } from '../../source/streams/declared-columns.js';
import type { StreamDescriptor } from '../../source/streams/stream-descriptor.js';
import { streamSource, type Source } from '../../source/source.js';
import type { RequestRules } from '../../source/upstream/index.js';
import { walkSettings, type PageClient, type RevisitSettings } from '../../source/walkers/index.js';

export interface PlanFilter {
  /** Only this business. */
  readonly business?: string;
  /** Only this stream of each business that lists it. */
  readonly stream?: string;
}

/**
 * Turns the validated config into one plan per business. The config schema has already checked
 * that every stream name is known and every v2 stream has a token, so a miss here is a bug.
 */
export function planBusinesses(config: CallsyncConfig, filter: PlanFilter = {}): BusinessPlan[] {
  const streams = new Map<string, StreamDescriptor>(builtinStreams);
  for (const spec of config.streams) streams.set(spec.name, customStream(spec));
  const known = (name: string): StreamDescriptor => {
    const descriptor = streams.get(name);
    if (descriptor === undefined) throw new Error(`stream "${name}" is not defined`);
    return withDeclaredTableColumns(descriptor, config.columns);
  };
  return config.businesses
    .filter((business) => filter.business === undefined || business.name === filter.business)
    .map((business) => ({
      name: business.name,
      streams: syncFirstOrder(business.streams.filter((name) => filter.stream === undefined || name === filter.stream).map(known)),
      credentials: {
        apiKey: business.apiKey,
        session: business.session,
        v2Token: business.v2Token,
      },
      bucket: business.rateLimit === false ? undefined : { limit: business.rateLimit.requests, windowMs: business.rateLimit.perMs },
      normalizeContext: { recordingsBaseUrl: config.upstream.recordingsBaseUrl, v2TimeZone: business.v2Timezone },
    }));
}

/** The streams marked `syncFirst` ahead of the rest, each group in the configured order. */
function syncFirstOrder(streams: readonly StreamDescriptor[]): StreamDescriptor[] {
  return [...streams.filter((stream) => stream.syncFirst === true), ...streams.filter((stream) => stream.syncFirst !== true)];
}

/** The configured revisit of recent records, or undefined when it is off. */
function revisitSettings(config: CallsyncConfig<unknown>, now: () => number = Date.now): RevisitSettings | undefined {
  const revisit = config.upstream.revisit;
  return revisit === false ? undefined : { windowMs: revisit.window, everyMs: revisit.every, now };
}

/** The source of one stream of `plan`: its walker with the config's paging and revisit, the business's client and this run's request rules. */
export function planSource(config: CallsyncConfig<unknown>, plan: BusinessPlan, client: PageClient, rules: RequestRules, descriptor: StreamDescriptor): Source {
  return streamSource({
    descriptor,
    client,
    rules,
    paging: walkSettings(config.upstream),
    revisit: revisitSettings(config),
    normalizeContext: plan.normalizeContext,
  });
}

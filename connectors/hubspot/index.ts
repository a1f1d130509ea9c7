import type { Sink, SinkDeps, SinkFactory } from '../../src/sink.js';
import { postgresSinkFactory } from '../postgres/index.js';
import { sqliteSinkFactory } from '../sqlite/index.js';
import { hubspotConfigSchema, type HubSpotConfig, type HubSpotStateConfig } from './config.js';
import { createHubSpotSink } from './hubspot-sink.js';

export type { HubSpotConfig } from './config.js';
export { hubspotConfigSchema } from './config.js';
export { createHubSpotSink, type HubSpotSinkDeps } from './hubspot-sink.js';
export { HubSpotError, isHubSpotError } from './errors.js';

/** Opens the SQL sink named by `state:` directly (not through the registry, which imports this file). */
function openStateSink(state: HubSpotStateConfig, deps: SinkDeps): Promise<Sink> {
  const child = { ...deps, logger: deps.logger.child({ role: 'hubspot-state' }) };
  return state.type === 'sqlite' ? sqliteSinkFactory.create(state, child) : postgresSinkFactory.create(state, child);
}

/** `sink: { type: hubspot, token, state, … }`: calls and voicemails as HubSpot Calls engagements. */
export const hubspotSinkFactory = {
  type: 'hubspot' as const,
  configSchema: hubspotConfigSchema,
  async create(config: HubSpotConfig, deps: SinkDeps): Promise<Sink> {
    return createHubSpotSink(config, { ...deps, stateSink: await openStateSink(config.state, deps) });
  },
} satisfies SinkFactory<HubSpotConfig>;

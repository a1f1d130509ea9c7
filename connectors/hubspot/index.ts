import { showUrl, urlPlace } from '../../src/base/redact/index.js';
import type { Sink, SinkDeps, SinkFactory } from '../../src/sink/sink.js';
import { openStateStore } from '../state-stores/index.js';
import { hubspotConfigSchema, type HubSpotConfig } from './config.js';
import { createHubSpotSink } from './sink.js';

/** `sink: { type: hubspot, token, state, … }`: calls and voicemails as HubSpot Calls engagements. */
export const hubspotSinkFactory = {
  type: 'hubspot' as const,
  configSchema: hubspotConfigSchema,
  async create(config: HubSpotConfig, deps: SinkDeps): Promise<Sink> {
    const store = await openStateStore(config.state, deps.logger.child({ role: 'hubspot-state' }));
    return createHubSpotSink(config, { ...deps, store });
  },
  describe: (config: HubSpotConfig) => ({
    key: 'sink.baseUrl',
    service: 'HubSpot',
    shown: showUrl(config.baseUrl),
    lockName: `hubspot:${urlPlace(config.baseUrl)}`,
  }),
} satisfies SinkFactory<HubSpotConfig>;

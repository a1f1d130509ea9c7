import { showUrl, urlPlace } from '../../src/base/redact/index.js';
import type { Sink, SinkDeps, SinkFactory } from '../../src/sink/sink.js';
import { openArchivedLinks } from '../crm/index.js';
import { openStateStore } from '../state-stores/index.js';
import { hubspotConfigSchema, type HubSpotConfig } from './config.js';
import { createHubSpotSink } from './sink.js';

/** `sink: { type: hubspot, token, state, … }`: calls and voicemails as HubSpot Calls engagements. */
export const hubspotSinkFactory = {
  type: 'hubspot' as const,
  configSchema: hubspotConfigSchema,
  async create(config: HubSpotConfig, deps: SinkDeps): Promise<Sink> {
    const store = await openStateStore(config.state, deps.logger.child({ role: 'hubspot-state' }));
    try {
      const base = deps.recordingsBaseUrl;
      const archivedLinks = base === undefined ? undefined : await openArchivedLinks(config.state, base, deps.logger.child({ role: 'hubspot-recordings' }));
      return createHubSpotSink(config, { ...deps, store, ...(archivedLinks === undefined ? {} : { archivedLinks }) });
    } catch (error) {
      await store.close();
      throw error;
    }
  },
  describe: (config: HubSpotConfig) => ({
    key: 'sink.baseUrl',
    service: 'HubSpot',
    shown: showUrl(config.baseUrl),
    lockName: `hubspot:${urlPlace(config.baseUrl)}`,
  }),
} satisfies SinkFactory<HubSpotConfig>;

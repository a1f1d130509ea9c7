import { sinkConfigSchema, type SinkConfig } from '../../../connectors/registry.js';
import { resolveConfig, type CallsyncConfig } from '../../config/index.js';
import type { Simulator } from '../../simulator/index.js';

/** The config a user would write for the simulator, built in code because its port is ephemeral. */
export function demoConfig(simulator: Simulator, databasePath: string): CallsyncConfig<SinkConfig> {
  const document = {
    upstream: {
      baseUrl: simulator.baseUrl,
      v2BaseUrl: simulator.v2BaseUrl,
      recordingsBaseUrl: simulator.recordingsBaseUrl,
    },
    businesses: simulator.businesses.map((business) => ({
      name: business.name,
      apiKey: business.apiKey,
      v2Token: business.v2Token,
      streams: ['calls', 'voicemails', 'numbers'],
    })),
    sink: { type: 'sqlite', path: databasePath },
  };
  return resolveConfig(document, {
    sinkSchema: sinkConfigSchema,
    env: {},
    readFile: () => {
      throw new Error('the demo config reads no files');
    },
    file: '(demo)',
  }).config;
}

import type { SinkConfig } from '../../../connectors/registry.js';
import { showUrl, type Target } from './explain.js';

/** The sink as the config names it: the key an operator edits and its value without credentials. */
export function sinkTarget(sink: SinkConfig): Target {
  switch (sink.type) {
    case 'sqlite':
      return { key: 'sink.path', service: 'SQLite', shown: sink.path };
    case 'postgres':
      return { key: 'sink.url', service: 'PostgreSQL', shown: showUrl(sink.url) };
    case 'webhook':
      return { key: 'sink.url', service: 'the webhook receiver', shown: showUrl(sink.url) };
    case 'hubspot':
      return { key: 'sink.baseUrl', service: 'HubSpot', shown: showUrl(sink.baseUrl) };
    case 'salesforce':
      return { key: 'sink.loginUrl', service: 'Salesforce', shown: showUrl(sink.loginUrl) };
  }
}

export function redisTarget(url: string): Target {
  return { key: 'redis.url', service: 'Redis', shown: showUrl(url) };
}

export function upstreamTarget(baseUrl: string, key = 'upstream.baseUrl'): Target {
  return { key, service: 'the upstream API', shown: showUrl(baseUrl) };
}

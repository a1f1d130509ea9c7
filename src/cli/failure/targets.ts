import { describeSink, type SinkConfig } from '../../../connectors/registry.js';
import { showUrl, type Target } from './explain.js';

/** The sink as its connector names it (the key an operator edits, its value without credentials), with its own error reading. */
export function sinkTarget(sink: SinkConfig): Target {
  return describeSink(sink);
}

export function redisTarget(url: string): Target {
  return { key: 'redis.url', service: 'Redis', shown: showUrl(url) };
}

export function upstreamTarget(baseUrl: string, key = 'upstream.baseUrl'): Target {
  return { key, service: 'the upstream API', shown: showUrl(baseUrl) };
}

import { describeSink, type SinkConfig } from '../../../../connectors/registry.js';
import { describeTarget, type RedisTarget } from '../../../base/redis/index.js';
import { showUrl, type Target } from './explain.js';

/** The sink as its connector names it (the key an operator edits, its value without credentials), with its own error reading. */
export function sinkTarget(sink: SinkConfig): Target {
  return describeSink(sink);
}

export function redisTarget(target: RedisTarget): Target {
  const { key, value } = describeTarget(target);
  return { key, service: key === 'redis.cluster' ? 'the Redis Cluster' : 'Redis', shown: key === 'redis.url' ? showUrl(value) : value };
}

export function upstreamTarget(baseUrl: string, key = 'upstream.baseUrl'): Target {
  return { key, service: 'the upstream API', shown: showUrl(baseUrl) };
}

import { z } from 'zod';
import type { FlushLimits, SinkCapabilities } from './sink.js';

/**
 * A warehouse sink's `flush:` section: how many pages one write gathers, for a sink whose cost is
 * per transaction or per file. Each connector gives its own defaults; the engine does the gathering.
 */
export const flushConfigSchema = z
  .strictObject({
    /** Records that fill a flush. */
    maxRows: z.number().int().min(1).max(1_000_000).optional(),
    /** Milliseconds a flush may wait for more pages after its first. */
    maxMs: z.number().int().min(0).max(600_000).optional(),
  })
  .optional();

type FlushConfig = z.infer<typeof flushConfigSchema>;

/**
 * The capabilities of a sink that writes in flushes: the configured limits over the connector's
 * defaults, and a batch that holds a whole flush (up to `maxRows` and the page that crossed it),
 * so one flush is one transaction or one file. With neither, every page is written by itself.
 */
export function flushCapabilities(config: FlushConfig, defaults?: FlushLimits): Partial<SinkCapabilities> {
  if (config === undefined && defaults === undefined) return {};
  const flush = { maxRows: 1, maxMs: 0, ...defaults, ...config };
  return { flush, maxBatchSize: Math.max(2 * flush.maxRows, 1000) };
}

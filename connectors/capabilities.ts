import type { SinkCapabilities } from '../src/sink.js';

/** What a sink promises when it says nothing; a new flag gets a default here so no connector breaks. */
export const defaultCapabilities: SinkCapabilities = Object.freeze({
  transactionalCheckpoint: false,
  maxBatchSize: 500,
});

/** Fills the flags a connector leaves out with {@link defaultCapabilities}. */
export function withCapabilityDefaults(declared: Partial<SinkCapabilities> = {}): SinkCapabilities {
  return Object.freeze({ ...defaultCapabilities, ...declared });
}

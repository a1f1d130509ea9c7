import type { NormalizeContext } from '../../normalize/index.js';
import type { BucketConfig } from '../../source/ratelimit/index.js';
import type { StreamDescriptor } from '../../source/streams/stream-descriptor.js';

/** Credentials of one business; at most one of apiKey and session is set. */
interface BusinessCredentials {
  readonly apiKey?: string;
  readonly session?: { readonly email: string; readonly password: string };
  readonly v2Token?: string;
}

/** Everything needed to sync one business, derived once from the config. */
export interface BusinessPlan {
  readonly name: string;
  readonly streams: readonly StreamDescriptor[];
  readonly credentials: BusinessCredentials;
  /** The business's request budget; undefined when client-side limiting is off. */
  readonly bucket: BucketConfig | undefined;
  readonly normalizeContext: NormalizeContext;
}

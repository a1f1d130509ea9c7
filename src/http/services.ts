import type { ServicePolicy } from './classify.js';
import { DEFAULT_MAX_WAIT_MS } from './server-wait.js';

/**
 * What differs between the services, as data; backoff and the wait cap come from each one's config.
 * Each connector declares its own beside its client (`connectors/<name>/`); the upstream's is here.
 */
export type ServiceTraits = Omit<ServicePolicy, 'backoff' | 'maxWaitMs'>;

/**
 * The call-tracking service: a 429 naming no wait waits one documented window; the caller's
 * abort is final; an unknown error is most likely passing network trouble.
 */
export const UPSTREAM_TRAITS: ServiceTraits = {
  service: 'upstream',
  maxWaitKey: 'upstream.maxWaitMs',
  rateLimitDefaultWaitMs: 60_000,
  abortIsTransient: false,
  retryUnknownErrors: true,
};

/** A service's full policy from its traits and config. */
export function servicePolicy(traits: ServiceTraits, backoff: ServicePolicy['backoff'], maxWaitMs = DEFAULT_MAX_WAIT_MS): ServicePolicy {
  return { ...traits, backoff, maxWaitMs };
}

export { apiKeyAuth, createUpstreamClient, DEFAULT_MAX_BODY_BYTES, v2BearerAuth } from './client.js';
export type {
  QueryParams,
  UpstreamApi,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamCredentials,
  UpstreamGetOptions,
  UpstreamResponse,
} from './client.js';
export { fetchWithRetry, upstreamFetch, waitCappedMessage } from './fetch-with-retry.js';
export type { FetchEvent, FetchPage, FetchPlan, FetchTarget, FetchWithRetryOptions, RetryPolicy, UpstreamFetchOptions } from './fetch-with-retry.js';
export { BudgetWaitError, isBudgetWaitError, isUpstreamError, UpstreamError, UpstreamErrorCode } from './errors.js';
export type { RequestContext, UpstreamErrorKind, UpstreamErrorOptions } from './errors.js';
export { classifyFailure, DEFAULT_RATE_LIMIT_WAIT_MS } from './classify.js';
export type { BodyFailure, Classification, HttpFailure } from './classify.js';
export { parseErrorBody } from './envelopes.js';
export { unwrapSuccess } from './read-response.js';
export type { ErrorBody } from './envelopes.js';
export { createUpstreamAgent } from './http.js';
export type { UpstreamAgentOptions } from './http.js';
export { cookieHeader, SessionAuth } from './auth/session.js';
export type { SessionAuthOptions } from './auth/session.js';
export type { RequestAuth } from './auth/types.js';
export type { JsonObject, JsonValue } from './json.js';
export type { RateLimitInfo } from '../ratelimit/index.js';

export { createUpstreamClient, DEFAULT_MAX_BODY_BYTES } from './client.js';
export type {
  QueryParams,
  UpstreamApi,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamCredentials,
  UpstreamGetOptions,
  UpstreamResponse,
} from './client.js';
export { fetchWithRetry, waitCappedMessage } from './fetch-with-retry.js';
export type { FetchEvent, FetchWithRetryOptions, RetryPolicy } from './fetch-with-retry.js';
export { BudgetWaitError, isBudgetWaitError, isUpstreamError, UpstreamError, UpstreamErrorCode } from './errors.js';
export type { RequestContext, UpstreamErrorKind, UpstreamErrorOptions } from './errors.js';
export { classifyFailure, DEFAULT_RATE_LIMIT_WAIT_MS } from './classify.js';
export type { BodyFailure, Classification, HttpFailure } from './classify.js';
export { parseErrorBody, unwrapSuccess } from './envelopes.js';
export type { ErrorBody } from './envelopes.js';
export { createUpstreamAgent } from './http.js';
export type { UpstreamAgentOptions } from './http.js';
export { apiKeyAuth } from './auth/api-key.js';
export { v2BearerAuth } from './auth/v2-bearer.js';
export { cookieHeader, SessionAuth } from './auth/session.js';
export type { SessionAuthOptions } from './auth/session.js';
export type { RequestAuth } from './auth/types.js';
export type { JsonObject, JsonValue } from './json.js';
export type { RateLimitInfo } from '../ratelimit/index.js';

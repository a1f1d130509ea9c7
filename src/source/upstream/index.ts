export { createUpstreamClient, waitCappedMessage } from './client.js';
export type {
  FetchEvent,
  QueryParams,
  RequestBudget,
  RequestRules,
  UpstreamApi,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamCredentials,
  UpstreamResponse,
} from './client.js';
export { BudgetWaitError, isBudgetWaitError, isUpstreamError, UpstreamError, UpstreamErrorCode } from './errors.js';
export type { RequestContext, UpstreamErrorKind, UpstreamErrorOptions } from './errors.js';
export { classifyFailure, DEFAULT_RATE_LIMIT_WAIT_MS } from './classify.js';
export type { BodyFailure, Classification, HttpFailure } from './classify.js';
export { parseErrorBody } from './envelopes.js';
export type { ErrorBody } from './envelopes.js';
export { createUpstreamAgent } from './http.js';
export type { UpstreamAgentOptions } from './http.js';
export { cookieHeader, SessionAuth } from './session.js';
export type { SessionAuthOptions } from './session.js';
export type { RequestAuth } from './auth.js';
export type { RateLimitInfo } from '../ratelimit/index.js';
export { runRules } from './run-rules.js';
export type { RunRulesOptions } from './run-rules.js';

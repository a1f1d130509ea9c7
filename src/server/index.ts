export { startStatusServer } from './http-server.js';
export type { StatusServer, StatusServerOptions } from './http-server.js';
export { runReadinessChecks, DEFAULT_READINESS_TIMEOUT_MS } from './readiness.js';
export type { ReadinessCheck, ReadinessReport } from './readiness.js';
export { renderStatusPage } from './status-page.js';
export { formatStatusTable, formatStatusJson } from './status-table.js';
export { redactUrlCredentials } from '../redact/index.js';
export type { Redact } from '../redact/index.js';

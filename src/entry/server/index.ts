export { startStatusServer } from './http-server.js';
export type { ExtraRoutes, StatusServer, StatusServerOptions } from './http-server.js';
export { formatStatusTable, formatStatusJson } from './status-table.js';
export { formatStatusSummary } from './status-summary-text.js';
export { statusDocument } from './status-json.js';
export type { StatusDocument } from './status-json.js';
export { lateAfterSeconds } from './status-summary.js';
export type { Redact } from '../../base/redact/index.js';

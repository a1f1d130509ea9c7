/** The upstream simulator: a faithful fake of the call-tracking service over real HTTP. */
export { startSimulator, DEFAULT_RECORDINGS_BASE_URL } from './start.js';
export { V2_PREFIX } from './server.js';
export { KEY_PREFIX, MAX_ACTIVE_KEYS } from './api-keys.js';
export { SESSION_COOKIE } from './sessions.js';
export { LONE_SURROGATE_TEXT } from './hostile-records.js';
export type { WebhookCounters, WebhookEvent, WebhookSenderOptions } from './webhook-sender.js';
export type {
  AddRecordsOptions,
  BrokenPaging,
  BusinessCounters,
  FaultCounters,
  Faults,
  Hostile,
  HostileRecords,
  OutboundToNumber,
  RateLimitOptions,
  RateWindow,
  SimBusiness,
  Simulator,
  SimulatorCounters,
  SimulatorOptions,
  Truth,
  TruthRecord,
} from './types.js';

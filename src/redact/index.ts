export { createRedactor, MIN_SECRET_LENGTH, redactDeep, redactUrlCredentials } from './redactor.js';
export type { Redact } from './redactor.js';
export { forTerminal, outsideText, truncate } from './outside-text.js';
export { showUrl, urlPlace } from './show-url.js';

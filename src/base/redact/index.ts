export { createRedactor, redactDeep, redactUrlCredentials } from './redactor.js';
export type { Redact } from './redactor.js';
export { forTerminal, outsideText, truncate } from './outside-text.js';
export { showUrl, urlPlace } from './show-url.js';

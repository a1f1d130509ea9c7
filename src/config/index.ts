export { type CallsyncConfig, type UpstreamConfig } from './schema.js';
export { loadConfig, type LoadedConfig } from './loader.js';
export { resolveConfig } from './resolve.js';
export { ConfigError, formatConfigError } from './errors.js';
export { DEFAULT_STREAMS } from './sections.js';

export { buildConfigSchema, type CallsyncConfig, type GenericSinkConfig, type UpstreamConfig } from './schema.js';
export { loadConfig, type LoadConfigOptions, type LoadedConfig } from './loader.js';
export { resolveConfig, type ResolveOptions, type ResolvedConfig } from './resolve.js';
export { ConfigError, formatConfigError, type ConfigProblem } from './errors.js';
export { parseConfigText } from './parse-text.js';
export { substitute, type ReadSecretFile } from './substitute.js';
export { BUILT_IN_STREAMS, DEFAULT_STREAMS, V2_STREAMS } from './sections.js';
export { parseDurationMs } from './duration.js';
export type { DeepReadonly } from './freeze.js';

import type { CallsyncConfig } from '../config/index.js';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

/** What a valid config may still get wrong, one line each, naming the key and the fix. */
export function configWarnings(config: CallsyncConfig<unknown>): string[] {
  const warnings: string[] = [];
  if (config.server.token === undefined && !LOOPBACK.test(config.server.host)) {
    warnings.push(
      `server.host ${config.server.host} is reachable from other machines and server.token is not set: anyone there can read /status and /metrics; set server.token (or server.host: 127.0.0.1)`,
    );
  }
  return warnings;
}

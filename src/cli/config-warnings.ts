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
  const hooks = config.hooks;
  if (hooks !== undefined) {
    const [key, host] = hooks.port === undefined ? ['server.host', config.server.host] : ['hooks.host', hooks.host];
    if (LOOPBACK.test(host)) {
      warnings.push(
        `webhooks are received on ${key} ${host}, which only this machine reaches: upstream needs a proxy here that forwards ${hooks.path}/ (or set ${key} to an address it can reach)`,
      );
    }
    if (hooks.auth === 'hmac' && hooks.signature.timestampHeader === false) {
      warnings.push(
        'hooks.signature.timestampHeader is false: a captured delivery can be replayed for ever (each replay costs a sync); use a timestamp header if the sender sends one',
      );
    }
  }
  return warnings;
}

import type { CallsyncConfig } from '../../config/index.js';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

/** Below this many characters a token or HMAC secret can be guessed, or found offline from one captured delivery. */
const MIN_STRONG_SECRET = 16;

const STRONG = `use at least ${MIN_STRONG_SECRET} random characters (openssl rand -hex 16)`;

/** `a, b, c and 4 more`: a warning stays one line at thousands of businesses. */
function some(names: readonly string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

type Config = CallsyncConfig<unknown>;

function shortSecretWarnings(config: Config): string[] {
  const warnings: string[] = [];
  const short = (secret: string | undefined): boolean => secret !== undefined && secret.length < MIN_STRONG_SECRET;
  if (short(config.server.token)) warnings.push(`server.token is shorter than ${MIN_STRONG_SECRET} characters: it can be guessed; ${STRONG}`);
  if (config.hooks === undefined) return warnings;
  const keys = config.businesses.flatMap((business, index) => (short(business.webhookSecret) ? [`businesses[${index}].webhookSecret`] : []));
  if (short(config.hooks.secret)) keys.unshift('hooks.secret');
  if (keys.length > 0) {
    warnings.push(
      `${some(keys)} ${keys.length === 1 ? 'is' : 'are'} shorter than ${MIN_STRONG_SECRET} characters: one captured delivery lets anyone test guesses offline; ${STRONG}`,
    );
  }
  return warnings;
}

/**
 * Businesses whose deliveries prove the same secret and say nothing signed about which business
 * they are for: the path is not signed, so a delivery for one is accepted at another's path. A body
 * field (`businessFrom: { field }`) is signed under HMAC; under `auth: token` nothing is.
 */
function sharedSecretWarning(config: Config): string | undefined {
  const hooks = config.hooks;
  if (hooks === undefined || (hooks.auth === 'hmac' && hooks.businessFrom !== undefined && 'field' in hooks.businessFrom)) return undefined;
  const bySecret = new Map<string, string[]>();
  for (const business of config.businesses) {
    const secret = business.webhookSecret ?? hooks.secret;
    if (secret !== undefined) bySecret.set(secret, [...(bySecret.get(secret) ?? []), business.name]);
  }
  const shared = [...bySecret].find(([, names]) => names.length > 1);
  if (shared === undefined) return undefined;
  const [secret, names] = shared;
  const key = secret === hooks.secret ? 'hooks.secret' : 'the same businesses[].webhookSecret';
  const fix =
    hooks.auth === 'token'
      ? 'give each business its own businesses[].webhookSecret'
      : 'give each business its own businesses[].webhookSecret, or name the business in the signed body (hooks.businessFrom: { field: NAME })';
  return `businesses ${some(names)} share one webhook ${hooks.auth === 'token' ? 'token' : 'secret'} (${key}) and nothing signed names the business: any business's delivery can trigger another's sync; ${fix}`;
}

/** What a valid config may still get wrong, one line each, naming the key and the fix. */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.server.token === undefined && !LOOPBACK.test(config.server.host)) {
    warnings.push(
      `server.host ${config.server.host} is reachable from other machines and server.token is not set: anyone there can read /status and /metrics; set server.token (or server.host: 127.0.0.1)`,
    );
  }
  warnings.push(...shortSecretWarnings(config));
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
    const shared = sharedSecretWarning(config);
    if (shared !== undefined) warnings.push(shared);
  }
  return warnings;
}

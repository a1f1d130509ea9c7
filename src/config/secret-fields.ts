// apiKey, v2Token, session.password, server.token, any sink field such as token/secret/password, and header values.
const SECRET_KEY = /(token|secret|password|apikey|api_key)$/i;

/** True when a value at `path` carries a credential, so its value must be redacted everywhere. */
export function isSecretPath(path: readonly PropertyKey[]): boolean {
  const names = path.filter((key): key is string => typeof key === 'string');
  // Extra request headers (the webhook's `headers`) usually carry a receiver's own credential.
  if (names.at(-2) === 'headers') return true;
  const last = names.at(-1);
  return last !== undefined && SECRET_KEY.test(last);
}

/** The password of a URL such as `postgres://user:pw@host/db`, decoded; undefined when there is none. */
export function urlPassword(text: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return undefined;
  try {
    const password = new URL(text).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}

// apiKey, v2Token, session.password, server.token, and any sink field such as token/secret/password.
const SECRET_KEY = /(token|secret|password|apikey|api_key)$/i;

/** True when a value at `path` carries a credential, so its value must be redacted everywhere. */
export function isSecretPath(path: readonly PropertyKey[]): boolean {
  const last = [...path].reverse().find((key) => typeof key === 'string');
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

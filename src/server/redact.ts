/** Turns text that might carry a secret into text that does not. */
export type Redact = (text: string) => string;

/** `scheme://user:password@host` → `scheme://[redacted]@host`: connection strings are the usual leak in driver errors. */
export function redactUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1[redacted]@');
}

/** Applies `redact` to every string inside a JSON-like value (keys included), leaving its shape alone. */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactDeep(item, redact)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactDeep(v, redact)])) as T;
  }
  return value;
}

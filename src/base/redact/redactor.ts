/** Turns text that might carry a secret into text that does not. */
export type Redact = (text: string) => string;

const REDACTED = '[redacted]';

/**
 * Secrets at least this long are removed wherever they occur. A shorter one (a weak `server.token`,
 * a test password) is removed only where it stands alone, see {@link standalone}: removing `p` or
 * `123` inside every word would mangle every line and tell a reader which letters the secret is.
 */
const MIN_SECRET_LENGTH = 4;

/** `scheme://user:password@host` → `scheme://[redacted]@host`: connection strings are the usual leak in driver errors. */
export function redactUrlCredentials(text: string): string {
  // Almost every log line has no URL: a substring search is far cheaper than the expression's scan.
  if (!text.includes('://')) return text;
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, `$1${REDACTED}@`);
}

// A secret can reach a line in JSON form (a log line, a response body): `"` and `\` escaped.
function spellings(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return json === secret ? [secret] : [secret, json];
}

interface SecretList {
  /** Spellings of at least {@link MIN_SECRET_LENGTH} characters, longest first: a secret that contains another is removed whole. */
  readonly long: string[];
  /** The shorter ones as one expression, or undefined when there are none. */
  readonly short: RegExp | undefined;
}

function secretList(values: Iterable<string | undefined>): SecretList {
  const all = new Set<string>();
  for (const value of values) {
    if (value === undefined || value.length === 0) continue;
    for (const spelling of spellings(value)) all.add(spelling);
  }
  const sorted = [...all].sort((a, b) => b.length - a.length);
  const short = sorted.filter((secret) => secret.length < MIN_SECRET_LENGTH);
  return { long: sorted.filter((secret) => secret.length >= MIN_SECRET_LENGTH), short: short.length === 0 ? undefined : standalone(short) };
}

/** A letter, digit or `_` in any script: what a short secret must not touch to count as one. */
const WORD = '[\\p{L}\\p{N}_]';

/**
 * Matches any of `secrets` where neither neighbour is a {@link WORD} character: `a` in `token=a` or
 * `"a"`, never in `a business`'s `business`. Only syntax characters are escaped, as the `u` flag requires.
 */
function standalone(secrets: readonly string[]): RegExp {
  const alternatives = secrets.map((secret) => secret.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')).join('|');
  return new RegExp(`(?<!${WORD})(?:${alternatives})(?!${WORD})`, 'gu');
}

/** A number for the {@link MIN_SECRET_LENGTH} characters ending at `end` (exclusive); equal texts, equal numbers. */
function tailCode(text: string, end: number, length = MIN_SECRET_LENGTH): number {
  let code = 0;
  for (let i = end - length; i < end; i++) code = (Math.imul(code, 31) + text.charCodeAt(i)) | 0;
  return code;
}

/** 31 to the power {@link MIN_SECRET_LENGTH} - 1: the weight of the character that leaves a rolled tail code. */
const DROP = 31 ** (MIN_SECRET_LENGTH - 1);

/** Bits of the filter in front of the tail index, per secret: about 1 in 64 bits set, so few positions pass it by chance. */
const FILTER_BITS_PER_SECRET = 64;
/** At most 2^18 bits (32 KB), and a filter per redactor: a webhook delivery makes one for its two secrets. */
const FILTER_MAX_BITS = 1 << 18;

/**
 * Whether any of `secrets` occurs in `text`, in one pass over the text: secrets are indexed by
 * their last characters (their first ones are often a shared literal, such as a key prefix), so a
 * line is read once instead of once per secret, which at thousands of businesses was most of the
 * cost of a log line. A bit array answers "no secret ends like this" for almost every position
 * before the index is asked: a map lookup per character was most of the cost of a `run` log line.
 */
function occurrenceCheck(secrets: readonly string[]): (text: string) => boolean {
  const byTail = new Map<number, string[]>();
  let bits = 32;
  while (bits < FILTER_MAX_BITS && bits < secrets.length * FILTER_BITS_PER_SECRET) bits *= 2;
  const filter = new Uint32Array(bits / 32);
  const mask = bits - 1;
  for (const secret of secrets) {
    const tail = tailCode(secret, secret.length);
    const bit = tail & mask;
    filter[bit >>> 5] = (filter[bit >>> 5] ?? 0) | (1 << (bit & 31));
    const bucket = byTail.get(tail);
    if (bucket === undefined) byTail.set(tail, [secret]);
    else bucket.push(secret);
  }
  return (text) => {
    if (text.length < MIN_SECRET_LENGTH) return false;
    // The code of the characters ending at `end`, rolled one character on at a time: the same number tailCode gives.
    let tail = tailCode(text, MIN_SECRET_LENGTH - 1, MIN_SECRET_LENGTH - 1);
    for (let end = MIN_SECRET_LENGTH; end <= text.length; end++) {
      tail = (Math.imul(tail - Math.imul(end > MIN_SECRET_LENGTH ? text.charCodeAt(end - MIN_SECRET_LENGTH - 1) : 0, DROP), 31) + text.charCodeAt(end - 1)) | 0;
      const bit = tail & mask;
      if (((filter[bit >>> 5] ?? 0) & (1 << (bit & 31))) === 0) continue;
      const bucket = byTail.get(tail);
      if (bucket?.some((secret) => end >= secret.length && text.startsWith(secret, end - secret.length)) === true) return true;
    }
    return false;
  };
}

function removeSecrets(text: string, secrets: SecretList): string {
  let out = text;
  for (const secret of secrets.long) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  // `replace` starts a global expression from the beginning whatever its lastIndex.
  return secrets.short === undefined ? out : out.replace(secrets.short, REDACTED);
}

/**
 * The one redactor: removes every secret value and every URL's credentials. `secrets` may be a
 * function for values learned later (a session cookie); it is read on every call.
 */
export function createRedactor(secrets: Iterable<string | undefined> | (() => Iterable<string | undefined>)): Redact {
  if (typeof secrets === 'function') return (text) => redactUrlCredentials(removeSecrets(text, secretList(secrets())));
  const fixed = secretList(secrets);
  const holdsLong = occurrenceCheck(fixed.long);
  // A copy without the global flag: `test` on a global expression would resume from its last match.
  const short = fixed.short === undefined ? undefined : new RegExp(fixed.short.source, 'u');
  const holdsAny = short === undefined ? holdsLong : (text: string) => holdsLong(text) || short.test(text);
  // Text with no secret in it (almost every line) is read once; one that has one is cleaned as before.
  return (text) => redactUrlCredentials(holdsAny(text) ? removeSecrets(text, fixed) : text);
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

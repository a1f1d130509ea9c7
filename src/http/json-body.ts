/** A response body read as JSON: its value, or why it is not JSON (with its text, for a message). */
type JsonBody =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      /** `empty`: nothing but whitespace; `not_json`: text no JSON parser accepts. */
      readonly problem: 'empty' | 'not_json';
      /** The body as received. Never put it in a message unredacted: a service may echo a secret. */
      readonly text: string;
    };

/**
 * The one JSON body reader of the HTTP clients. It never throws: a body that is empty or not JSON
 * is said as such, so a caller can fail with "answered 200 with a body that is not JSON" rather
 * than read fields of `undefined`. `parse` is `JSON.parse` unless a service needs more: the
 * upstream passes its exact parser, which keeps ids that `JSON.parse` would round apart.
 */
export function parseJson(text: string, parse: (text: string) => unknown = JSON.parse): JsonBody {
  if (text.trim() === '') return { ok: false, problem: 'empty', text };
  try {
    return { ok: true, value: parse(text) };
  } catch {
    return { ok: false, problem: 'not_json', text };
  }
}

/** The value of a body read as JSON; `undefined` when it was empty or not JSON. */
export function jsonValue(body: JsonBody): unknown {
  return body.ok ? body.value : undefined;
}

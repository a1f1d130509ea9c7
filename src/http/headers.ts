/** Response headers as undici gives them (lower-case names); a `Headers` object works too. */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>> | Headers;

/** Headers with one value each, under lower-case names: what a service's classifier reads. */
export type FlatHeaders = Readonly<Record<string, string | undefined>>;

/** The first of a repeated header's values (undici gives an array for a header sent twice). */
export function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** One header's value, case-insensitively; the first of repeated values. */
export function headerValue(headers: HeaderBag | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  return firstValue(headers[lower] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === lower)?.[1]);
}

/** Every header under its lower-case name with its first value. */
export function flattenHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): FlatHeaders {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) flat[name.toLowerCase()] = firstValue(value);
  return flat;
}

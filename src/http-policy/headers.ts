/** Response headers as undici gives them (lower-case names); a `Headers` object works too. */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>> | Headers;

/** One header's value, case-insensitively; the first of repeated values. */
export function headerValue(headers: HeaderBag | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  const value = headers[lower] ?? Object.entries(headers).find(([k]) => k.toLowerCase() === lower)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

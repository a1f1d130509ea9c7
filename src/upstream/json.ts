/** JSON as parsed from an upstream body (structurally the same as the sink contract's `Json`). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

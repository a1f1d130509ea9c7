/**
 * JSON as parsed from an upstream body: what the client reads, the normalizer maps, and every
 * record keeps whole in `raw`. Its own module so that `upstream/`, which knows nothing of sinks,
 * and the sink contract (`sink.ts`, which re-exports it) share the one type.
 */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

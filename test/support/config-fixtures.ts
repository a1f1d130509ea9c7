import { z } from 'zod';

/** A small stand-in for the registry's sink union, for the config tests. */
export const testSinkSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('sqlite'), path: z.string().min(1) }),
  z.strictObject({ type: z.literal('postgres'), url: z.string().min(1), schema: z.string().default('callsync') }),
]);

/** The smallest config that uses every default. */
export function minimalConfig(): Record<string, unknown> {
  return {
    upstream: { baseUrl: 'https://calls.example.com', v2BaseUrl: 'https://v2.calls.example.com' },
    businesses: [{ name: 'acme', apiKey: 'key-acme', v2Token: 'tok-acme' }],
    sink: { type: 'sqlite', path: './data/callsync.db' },
  };
}

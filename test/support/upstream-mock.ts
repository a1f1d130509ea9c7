import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { expect } from 'vitest';

export const BASE = 'https://calls.example.com';
export const V2 = 'https://v2.calls.example.com';
export const API_KEY = 'ck_live_SECRETKEY123456';
export const V2_TOKEN = 'v2tok_SECRET_987654';
export const PASSWORD = 'hunter2-SECRET-pw';
export const EMAIL = 'ops@acme.test';

export const RATE_HEADERS = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1763782967.250' };

/** A MockAgent that refuses any request nobody set up. */
export function mockAgent(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  return agent;
}

/** Fails when a secret shows in anything a log line could print of `error`. */
export function expectNoSecrets(error: unknown, secrets: readonly string[] = [API_KEY, V2_TOKEN, PASSWORD]): void {
  const renderings = [String(error), JSON.stringify(error), inspect(error, { depth: 10 })];
  for (const secret of secrets) for (const text of renderings) expect(text).not.toContain(secret);
}

/** The rejection of `promise`, failing the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

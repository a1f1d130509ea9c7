import { randomBytes, randomUUID } from 'node:crypto';

/** Literal start of every secret; the key list shows it plus the next 8 characters. */
export const KEY_PREFIX = 'ctk_live_';
/** Spec section 5: at most 10 active keys per business. */
export const MAX_ACTIVE_KEYS = 10;

export interface ApiKeyRecord {
  id: string;
  business: string;
  name: string;
  secret: string;
  createdAtMs: number;
  lastUsedAtMs: number | null;
  revokedAtMs: number | null;
}

export function keyPrefix(secret: string): string {
  return secret.slice(0, KEY_PREFIX.length + 8);
}

/** All keys of all businesses; lookups by secret are exact and revocation is checked on every request. */
export class ApiKeyRegistry {
  readonly #bySecret = new Map<string, ApiKeyRecord>();
  readonly #byBusiness = new Map<string, ApiKeyRecord[]>();

  /** Registers a key with a known secret (the deterministic initial keys). */
  add(business: string, name: string, secret: string, nowMs: number, id: string = randomUUID()): ApiKeyRecord {
    const record: ApiKeyRecord = { id, business, name, secret, createdAtMs: nowMs, lastUsedAtMs: null, revokedAtMs: null };
    this.#bySecret.set(secret, record);
    const list = this.#byBusiness.get(business) ?? [];
    list.push(record);
    this.#byBusiness.set(business, list);
    return record;
  }

  /** Creates a key with a fresh random secret, or returns undefined at the active-key maximum. */
  create(business: string, name: string, nowMs: number): ApiKeyRecord | undefined {
    if (this.active(business).length >= MAX_ACTIVE_KEYS) return undefined;
    return this.add(business, name, KEY_PREFIX + randomBytes(20).toString('hex'), nowMs);
  }

  /** The key with this secret, revoked or not. */
  lookup(secret: string): ApiKeyRecord | undefined {
    return this.#bySecret.get(secret);
  }

  active(business: string): ApiKeyRecord[] {
    return (this.#byBusiness.get(business) ?? []).filter((k) => k.revokedAtMs === null);
  }

  /** Revokes key `id` of `business`; false when unknown or already revoked. */
  revoke(business: string, id: string, nowMs: number): boolean {
    const key = (this.#byBusiness.get(business) ?? []).find((k) => k.id === id && k.revokedAtMs === null);
    if (key === undefined) return false;
    key.revokedAtMs = nowMs;
    return true;
  }
}

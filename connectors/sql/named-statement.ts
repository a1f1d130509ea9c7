import { createHash } from 'node:crypto';

/** SQL text and its prepared-statement name. */
export interface NamedStatement {
  readonly text: string;
  /** Derived from the text, so one name never stands for two texts on a connection. */
  readonly name: string;
}

export function named(text: string): NamedStatement {
  return { text, name: `callsync_${createHash('sha256').update(text).digest('hex').slice(0, 32)}` };
}

import type { Redact } from './redactor.js';

// ESC sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ESC \`, two-byte `ESC x`), the 8-bit CSI,
// then any other C0 control but tab and newline, DEL and C1.
// eslint-disable-next-line no-control-regex
const CONTROL = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|\x9b[0-?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Text that came from outside, safe for a terminal: no escape sequences, no control characters but tab and newline. */
export function forTerminal(text: string): string {
  return text.replace(CONTROL, '');
}

/** The first `maxChars` characters, `…` marking a cut. Cut only text already redacted. */
export function truncate(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

/**
 * Text from outside (a server's message, a receiver's body) made fit for errors, logs and dead
 * letters, in the one safe order: control characters out, secrets scrubbed, then cut. Cutting first
 * could leave a fragment of a secret that no longer matches it.
 */
export function outsideText(text: string, redact: Redact, maxChars = Number.POSITIVE_INFINITY): string {
  return truncate(redact(forTerminal(text)), maxChars);
}

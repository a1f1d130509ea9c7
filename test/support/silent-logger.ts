import { pino, type Logger } from 'pino';

/** The sinks and reporter want a logger; the bench prints its own table and keeps stderr for progress. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

import type { SinkDescription, SinkFailureExplanation } from '../../src/sink.js';

/** PostgreSQL's SQLSTATE codes an operator can fix: a missing database, rejected credentials, no CREATE right, a full disk. */
export function explainPostgresFailure(codes: readonly string[], sink: SinkDescription): SinkFailureExplanation | undefined {
  const has = (...wanted: string[]): boolean => codes.some((code) => wanted.includes(code));
  const at = `${sink.service} at ${sink.shown} (${sink.key})`;
  if (has('3D000')) {
    const name = sink.shown.split('/').pop() ?? '';
    return { what: `${at}: database "${name}" does not exist`, fix: `create it (createdb ${name}) or correct ${sink.key}`, cause: 'unreachable' };
  }
  if (has('28P01', '28000')) return { what: `${at}: the user or password was rejected`, fix: `correct the credentials in ${sink.key}`, cause: 'unreachable' };
  if (has('42501')) {
    return {
      what: `${at}: permission denied to create the schema or its tables`,
      fix: 'grant the user CREATE on the database, or use a user that has it',
      cause: 'unreachable',
    };
  }
  if (has('53100')) {
    return {
      what: `${at}: the disk is full`,
      fix: `free space on that disk, or move ${sink.key} to another one; then run again (it resumes)`,
      cause: 'filesystem',
    };
  }
  return undefined;
}

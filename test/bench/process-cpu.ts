import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat; 100 on every Linux this runs on (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses; the fields after its last ")" are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

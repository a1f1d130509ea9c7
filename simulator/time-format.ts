/** The two time shapes of the service and the v2 duration shape. All times are UTC. */

/** v1 shape `YYYY-MM-DDTHH:MM:SSZ` from unix seconds. */
export function isoFromUnixSeconds(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

/** v2 shape `YYYY-MM-DD HH:MM:SS` (UTC) from unix seconds. */
export function v2Time(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** v2 duration shape `HH:MM:SS`. */
export function hms(totalSeconds: number): string {
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return [h, m, s].map((n) => String(n).padStart(2, '0')).join(':');
}

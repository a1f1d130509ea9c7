import { isIP } from 'node:net';

/**
 * The name a `Host` header gives, lower case, without port or trailing dot; IPv6 literals without
 * their brackets. `undefined` for a header that is no host (an empty one, `[` without `]`).
 */
function hostName(header: string): string | undefined {
  const text = header.trim().toLowerCase();
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    return end === -1 ? undefined : text.slice(1, end);
  }
  const name = text.replace(/:\d*$/, '').replace(/\.$/, '');
  return name === '' ? undefined : name;
}

/**
 * Whether a request's `Host` header is one this server answers for: an IP literal, `localhost`, or
 * a name in `allowed` (case and a trailing dot ignored). A page in a browser on this machine can
 * point a name of its own at 127.0.0.1 (DNS rebinding) and read what that name answers; its
 * requests then carry that name, so refusing unknown names keeps the status and metrics to
 * the operators. A request without `Host` passes: browsers always send one.
 */
export function createHostCheck(allowed: readonly string[]): (host: string | undefined) => boolean {
  const names = new Set(allowed.map((name) => name.toLowerCase().replace(/\.$/, '')));
  return (host) => {
    if (host === undefined) return true;
    const name = hostName(host);
    return name !== undefined && (isIP(name) !== 0 || name === 'localhost' || names.has(name));
  };
}

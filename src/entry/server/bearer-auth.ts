import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Checks `Authorization: Bearer <token>` in constant time. Both sides are hashed first so the
 * comparison takes the same time whatever the length of the guess.
 */
export function createBearerCheck(token: string): (authorization: string | undefined) => boolean {
  if (token.length === 0) throw new RangeError('the status server token must not be empty');
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? '');
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
  };
}

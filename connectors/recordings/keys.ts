/**
 * Where a recording is kept in the archive: `<business>/<stream>/<yyyy>/<mm>/<id>.<ext>`, from the
 * record alone (its month by `created_at`, UTC), so a rerun writes the same key and never a second
 * copy; its SHA-256 beside it, as `<key>.sha256` in `sha256sum`'s format.
 */

/** The record a recording belongs to, and the link it was found at. */
export interface RecordingRef {
  readonly businessId: string;
  readonly stream: string;
  readonly id: string;
  readonly url: string;
  /** ISO 8601; the archive's year and month folders. Undefined or unreadable: `0000/00`. */
  readonly createdAt?: string | undefined;
}

/** Audio and video extensions kept from the link's path as they are. */
const KNOWN_EXTENSIONS = new Set(['wav', 'mp3', 'flac', 'ogg', 'opus', 'oga', 'm4a', 'mp4', 'aac', 'webm', 'amr', 'gsm']);

/** The extension a media type stands for, when the link's path has none. */
const TYPE_EXTENSIONS: Readonly<Record<string, string>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/vnd.wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/webm': 'webm',
  'video/mp4': 'mp4',
};

/** One key segment: percent-encoded, and never `.` or `..` (a folder store would leave its root). */
function segment(text: string): string {
  return encodeURIComponent(text).replace(/^\./, '%2E');
}

/** `wav` for `…/RE12.wav?sig=…`; else the media type's; else `bin`. */
export function extensionOf(url: string, contentType: string | undefined): string {
  const path = URL.canParse(url) ? new URL(url).pathname : url;
  const dot = /\.([a-z0-9]{2,5})$/i.exec(path)?.[1]?.toLowerCase();
  if (dot !== undefined && KNOWN_EXTENSIONS.has(dot)) return dot;
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return (type === undefined ? undefined : TYPE_EXTENSIONS[type]) ?? 'bin';
}

/**
 * Every key the recording can have been stored under before its answer is seen: the one its link's
 * extension gives, or (a link with none) one for each media type's extension and `bin`.
 */
export function possibleKeys(ref: RecordingRef): readonly string[] {
  const known = extensionOf(ref.url, undefined);
  if (known !== 'bin') return [archiveKey(ref, known)];
  return [...new Set([...Object.values(TYPE_EXTENSIONS), 'bin'])].map((extension) => archiveKey(ref, extension));
}

/** The recording's key in the archive. */
export function archiveKey(ref: RecordingRef, extension: string): string {
  const at = ref.createdAt === undefined ? Number.NaN : Date.parse(ref.createdAt);
  const month = Number.isNaN(at) ? '0000/00' : new Date(at).toISOString().slice(0, 7).replace('-', '/');
  return `${segment(ref.businessId)}/${segment(ref.stream)}/${month}/${segment(ref.id)}.${extension}`;
}

/** The SHA-256 a checksum's text holds for `key`, or undefined when the text is not whole or names another file. */
export function checksumOf(key: string, text: string): string | undefined {
  const match = /^([0-9a-f]{64}) {2}(.+)\n$/.exec(text);
  return match?.[2] === key.slice(key.lastIndexOf('/') + 1) ? match[1] : undefined;
}

/** The key of the SHA-256 kept beside a recording, and its text (`sha256sum -c` reads it). */
export function checksumObject(key: string, sha256: string): { readonly key: string; readonly text: string } {
  return { key: `${key}.sha256`, text: `${sha256}  ${key.slice(key.lastIndexOf('/') + 1)}\n` };
}

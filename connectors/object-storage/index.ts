import type { ObjectStoreConfig } from './config.js';
import type { ObjectStore } from './store.js';

export { objectStoreConfigSchema, type ObjectStoreConfig } from './config.js';
export { explainObjectStoreError, explainObjectStoreFailure } from './errors.js';
export type { ObjectStore } from './store.js';

/**
 * Opens the folder or bucket a config names. The AWS SDK is loaded only for `type: s3`, so a run
 * that writes to a folder never loads it.
 */
export async function openObjectStore(config: ObjectStoreConfig): Promise<ObjectStore> {
  if (config.type === 'folder') return (await import('./folder.js')).FolderStore.open(config);
  // The SDK warns once, on stderr, that its releases after January 2027 will need Node 22: nothing
  // an operator of this release can act on, and stderr is where callsync's own messages go.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return new (await import('./s3.js')).S3Store(config);
}

/** Where a store writes, for messages: the folder, or `endpoint/bucket/prefix` (never a credential), and the key an operator corrects. */
export function objectStorePlace(config: ObjectStoreConfig): { key: string; shown: string } {
  if (config.type === 'folder') return { key: 'storage.path', shown: config.path };
  const endpoint = config.endpoint === undefined ? `https://s3.${config.region}.amazonaws.com` : new URL(config.endpoint).origin;
  return { key: config.endpoint === undefined ? 'storage.bucket' : 'storage.endpoint', shown: `${endpoint}/${config.bucket}/${config.prefix}` };
}

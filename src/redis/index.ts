export { connectRedis, describeTarget, type ConnectOptions, type RedisClient, type RedisTarget } from './connection.js';
export { asKeySpace, bySlotTag, configKeySpace, keySpace, type KeySpace, type KeySpaceSettings } from './key-space.js';

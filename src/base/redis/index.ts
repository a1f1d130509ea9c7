export { connectRedis, describeTarget, type RedisClient, type RedisTarget } from './connection.js';
export { asKeySpace, bySlotTag, configKeySpace, keySpace, type KeySpace } from './key-space.js';
export { redisOutageLog, type RedisOutageLog } from './outage-log.js';

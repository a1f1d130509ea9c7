import { describeStatusStoreContract } from '../../test/integration/server/status-store-contract.js';
import { createMemoryStatusStore } from './memory-status-store.js';

describeStatusStoreContract('in-memory', (now) => Promise.resolve(createMemoryStatusStore({ now })));

/** What every CRM connector shares: the other-party rule and the business's tracked numbers. */
export { directionDecidedNote, otherParty, type PartyBasis } from './other-party.js';
export { TrackedNumbers } from './tracked-numbers.js';
export { trackedNumbersSchema } from './config.js';

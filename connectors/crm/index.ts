/** What every CRM connector shares: the other-party rule and the business's tracked numbers. */
export { DIRECTION_DECIDED, directionDecidedNote, otherParty, toE164, type OtherParty, type PartyBasis, type PartyInput } from './other-party.js';
export { NUMBERS_STREAM, TrackedNumbers, type TrackedNumbersOptions } from './tracked-numbers.js';
export { trackedNumbersSchema } from './config.js';

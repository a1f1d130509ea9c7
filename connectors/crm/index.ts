/** What every CRM connector shares: the other-party rule, the business's tracked numbers and how a call's fields are read. */
export { directionDecidedNote, otherParty, type PartyBasis } from './other-party.js';
export { TrackedNumbers } from './tracked-numbers.js';
export { trackedNumbersSchema } from './config.js';
export { CALL_STREAMS, callDescription, callDirection, callKey, callSubject, durationSeconds, fieldText, recordingLinks } from './call-mapping.js';
export { archivedLinksOfBatch, openArchivedLinks, type ArchivedLinks } from './archived-links.js';

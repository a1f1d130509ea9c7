/**
 * The unique value a call gets just before it is archived. HubSpot has no API to restore an
 * archived call and does not document whether a call in its recycling bin keeps its unique values;
 * if it does, a record that comes back upstream could never be upserted again. Moving the value
 * aside first leaves it free under either reading, and the call's object id keeps each tombstone
 * unique (the same record may be archived again after it came back).
 */
export function tombstoneValue(uniqueValue: string, hubspotId: string): string {
  return `${uniqueValue}${MARK}${hubspotId}`;
}

/** The unique value a tombstone was made from; other values come back unchanged. */
export function valueBeforeTombstone(value: string): string {
  const at = value.lastIndexOf(MARK);
  return at >= 0 && /^\d+$/.test(value.slice(at + MARK.length)) ? value.slice(0, at) : value;
}

const MARK = '#archived-';

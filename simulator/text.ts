import type { Rng } from './prng.js';

const OPENERS = [
  'Hi, this is Maria calling about the estimate you sent last week.',
  'Hello, I am calling to schedule a repair for my water heater.',
  'Good morning, I saw your ad and wanted to ask about pricing.',
  'Hey, this is Tom from the Oak Street job, returning your call.',
  'Hi there, I need to reschedule my appointment on Thursday.',
  'Hello, I have a question about my last invoice.',
  'Hi, my furnace stopped working and I need someone today if possible.',
  'Good afternoon, I would like a quote for a kitchen remodel.',
] as const;

const DETAILS = [
  'The best number to reach me is the one I am calling from.',
  'I am available after three in the afternoon.',
  'It is a two story house with a basement.',
  'We were referred by a neighbor who used you last year.',
  'Please call me back when you get a chance.',
  "I'd also like to know if you offer financing.",
  'The address is on file from the last visit.',
] as const;

const SUMMARIES = [
  'Caller requests a callback about an estimate.',
  'New lead asking for pricing.',
  'Existing customer wants to reschedule.',
  'Billing question about the last invoice.',
  'Urgent repair request.',
  'Quote request for a remodel.',
] as const;

/** A plausible transcription of one to three sentences. */
export function transcription(rng: Rng): string {
  const parts: string[] = [rng.pick(OPENERS)];
  const extra = rng.int(0, 2);
  for (let i = 0; i < extra; i++) parts.push(rng.pick(DETAILS));
  return parts.join(' ');
}

export function summary(rng: Rng): string {
  return rng.pick(SUMMARIES);
}

export const NUMBER_LABELS = ['Google Ads', 'Website', 'Billboard I-95', 'Yelp', 'Direct Mail', 'Facebook', 'Radio Spot', 'Truck Wrap'] as const;

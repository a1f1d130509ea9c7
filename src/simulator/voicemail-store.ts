import type { NumberModel, VoicemailModel } from './models.js';
import { historyTime } from './models.js';
import { mix, Rng } from './prng.js';
import { usNumber } from './phone.js';
import { summary, transcription } from './text.js';

export interface VoicemailContext {
  businessSeed: number;
  numbers: readonly NumberModel[];
  userFolder: string;
  /** Telephony-provider account of `voicemail_api_recording_url`. */
  providerAccount: string;
  uuidBase: number;
  initialCount: number;
}

/** Voicemails are few: kept whole, oldest first, each serialized once for v2. */
export class VoicemailStore {
  readonly #ctx: VoicemailContext;
  readonly #render: (vm: VoicemailModel) => string;
  readonly #items: VoicemailModel[] = [];
  readonly #json: string[] = [];

  constructor(ctx: VoicemailContext, render: (vm: VoicemailModel) => string) {
    this.#ctx = ctx;
    this.#render = render;
    const rng = new Rng(mix(ctx.businessSeed, 0x7174));
    for (let i = 0; i < ctx.initialCount; i++) this.#add(historyTime(i, ctx.initialCount, rng.next()));
  }

  /** Voicemails served, contract-breaking ones included. */
  get length(): number {
    return this.#json.length;
  }

  all(): readonly VoicemailModel[] {
    return this.#items;
  }

  /** The newest `limit` voicemails' JSON, newest first. */
  newestJson(limit: number): string[] {
    return this.#json.slice(Math.max(0, this.#json.length - limit)).reverse();
  }

  /**
   * Serves `raw` as the newest voicemail, exactly as given: a record that breaks the contract
   * (no uuid, an unparseable time), which a client must dead-letter. It is not part of the truth.
   */
  appendRaw(raw: unknown): void {
    this.#json.push(JSON.stringify(raw));
  }

  append(count: number, nowSec: number): void {
    for (let i = 0; i < count; i++) this.#add(nowSec);
  }

  #add(atSec: number): void {
    // Counting served records (raw ones too) keeps every uuid unique.
    const index = this.#json.length;
    const last = this.#items[this.#items.length - 1];
    const rng = new Rng(mix(this.#ctx.businessSeed, 0x7637, index));
    const tracking = rng.pick(this.#ctx.numbers);
    const recordingId = `RE${rng.hex(32)}`;
    const hasText = rng.chance(0.88);
    const text = hasText ? transcription(rng) : '';
    const vm: VoicemailModel = {
      index,
      uuid: this.#ctx.uuidBase + index,
      trackingNumber: tracking,
      toNumber: tracking.number,
      fromNumber: usNumber(rng),
      transcription: text,
      summary: hasText && rng.chance(0.75) ? summary(rng) : null,
      recordingPath: `/${this.#ctx.userFolder}/recordings/${tracking.folder}/${recordingId}.wav`,
      apiRecordingUrl: `https://api.telephony.example/2010-04-01/Accounts/${this.#ctx.providerAccount}/Recordings/${recordingId}.wav`,
      durationSec: rng.int(3, 240),
      createdAtSec: Math.max(atSec, last?.createdAtSec ?? 0),
    };
    this.#items.push(vm);
    this.#json.push(this.#render(vm));
  }
}

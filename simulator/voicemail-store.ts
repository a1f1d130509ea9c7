import type { NumberModel, VoicemailModel } from './models.js';
import { historyTime } from './models.js';
import { mix, Rng } from './prng.js';
import { usNumber } from './phone.js';
import { summary, transcription } from './text.js';

/** Where a provider's recording links live on its host: `<prefix>/<account>/Recordings/<id>.wav`. */
export const PROVIDER_RECORDINGS_PATH = '/2010-04-01/Accounts';

interface VoicemailContext {
  businessSeed: number;
  numbers: readonly NumberModel[];
  userFolder: string;
  /** Telephony-provider account of `voicemail_api_recording_url`. */
  providerAccount: string;
  /** Host (and any path prefix) of `voicemail_api_recording_url`. */
  providerBaseUrl: string;
  uuidBase: number;
  initialCount: number;
}

/** One served voicemail; `model` is absent for a contract-breaking raw record. */
interface Entry {
  createdAtSec: number;
  json: string;
  model?: VoicemailModel;
}

/**
 * Voicemails are few: kept whole, in serving order (ascending created_at, ties in arrival order),
 * each serialized once for v2. A voicemail dated in the future stays at the newest end while
 * later arrivals, dated now, are served below it.
 */
export class VoicemailStore {
  readonly #ctx: VoicemailContext;
  readonly #render: (vm: VoicemailModel) => string;
  readonly #entries: Entry[] = [];
  /** Voicemails deleted upstream: their recording links answer 404, not "never existed". */
  readonly #removed: VoicemailModel[] = [];
  /** Records ever added, raw ones too: every uuid stays unique after deletions. */
  #added = 0;

  constructor(ctx: VoicemailContext, render: (vm: VoicemailModel) => string) {
    this.#ctx = ctx;
    this.#render = render;
    const rng = new Rng(mix(ctx.businessSeed, 0x7174));
    for (let i = 0; i < ctx.initialCount; i++) this.#add(historyTime(i, ctx.initialCount, rng.next()));
  }

  /** Voicemails served, contract-breaking ones included. */
  get length(): number {
    return this.#entries.length;
  }

  /** The voicemails in the truth, oldest first (raw records are not). */
  all(): readonly VoicemailModel[] {
    return this.#entries.flatMap((e) => (e.model === undefined ? [] : [e.model]));
  }

  /** The voicemail whose recording has this id, and whether it was deleted upstream. */
  byRecordingId(recordingId: string): { model: VoicemailModel; deleted: boolean } | undefined {
    const suffix = `/${recordingId}.wav`;
    const live = this.#entries.find((e) => e.model?.recordingPath.endsWith(suffix) === true)?.model;
    if (live !== undefined) return { model: live, deleted: false };
    const gone = this.#removed.find((vm) => vm.recordingPath.endsWith(suffix));
    return gone === undefined ? undefined : { model: gone, deleted: true };
  }

  /** The newest `limit` voicemails' JSON, newest first. */
  newestJson(limit: number): string[] {
    return this.#entries
      .slice(Math.max(0, this.#entries.length - limit))
      .map((e) => e.json)
      .reverse();
  }

  /**
   * Serves `raw` as the newest voicemail, exactly as given: a record that breaks the contract
   * (no uuid, an unparseable time), which a client must dead-letter. It is not part of the truth.
   */
  appendRaw(raw: unknown): void {
    this.#added++;
    const newest = this.#entries[this.#entries.length - 1];
    this.#entries.push({ createdAtSec: newest?.createdAtSec ?? 0, json: JSON.stringify(raw) });
  }

  /** `count` voicemails created at `atSec` (now, or any other time: a clock-skewed upstream). */
  append(count: number, atSec: number): void {
    for (let i = 0; i < count; i++) this.#add(atSec);
  }

  /** Removes the first voicemail that `matches` from the list; false when there is none. */
  delete(matches: (vm: VoicemailModel) => boolean): boolean {
    const at = this.#entries.findIndex((e) => e.model !== undefined && matches(e.model));
    if (at < 0) return false;
    const [entry] = this.#entries.splice(at, 1);
    if (entry?.model !== undefined) this.#removed.push(entry.model);
    return true;
  }

  #add(atSec: number): void {
    const index = this.#added++;
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
      apiRecordingUrl: `${this.#ctx.providerBaseUrl}${PROVIDER_RECORDINGS_PATH}/${this.#ctx.providerAccount}/Recordings/${recordingId}.wav`,
      durationSec: rng.int(3, 240),
      createdAtSec: atSec,
    };
    // After every entry dated at or before it: arrivals in order, a future-dated one stays newest.
    let at = this.#entries.length;
    while (at > 0 && (this.#entries[at - 1]?.createdAtSec ?? 0) > atSec) at--;
    this.#entries.splice(at, 0, { createdAtSec: atSec, json: this.#render(vm), model: vm });
  }
}

import type { ApiKeyRegistry } from './api-keys.js';
import { KEY_PREFIX } from './api-keys.js';
import { CallStore } from './call-store.js';
import type { NumberModel, SmsModel } from './models.js';
import { HISTORY_END_SEC } from './models.js';
import { makeNumbers, makeSms } from './numbers.js';
import { mix, Rng } from './prng.js';
import type { RenderOptions } from './render.js';
import { callV1Json, voicemailV2Json } from './render.js';
import type { OutboundToNumber, SimBusiness } from './types.js';
import { VoicemailStore } from './voicemail-store.js';

interface BusinessSpec {
  seed: number;
  index: number;
  calls: number;
  voicemails: number;
  numbers: number;
  recordingsBaseUrl: string;
  providerBaseUrl: string;
  v2NumbersAsNumbers: number;
  v2FractionalUuid: boolean;
  outboundToNumber: OutboundToNumber;
}

const SMS_PER_BUSINESS = 40;

/** One simulated business: credentials and all of its data. */
export class BusinessData {
  readonly index: number;
  readonly seed: number;
  readonly credentials: SimBusiness;
  readonly initialKeyId: string;
  readonly render: RenderOptions;
  readonly numbers: readonly NumberModel[];
  readonly sms: readonly SmsModel[];
  readonly calls: CallStore;
  readonly voicemails: VoicemailStore;
  /** `<user-folder>` of this business's recording paths. */
  readonly userFolder: string;
  /** Account in this business's provider links. */
  readonly providerAccount: string;

  constructor(spec: BusinessSpec, keys: ApiKeyRegistry) {
    this.index = spec.index;
    this.seed = mix(spec.seed, spec.index + 1);
    const name = `biz-${spec.index + 1}`;
    const rng = new Rng(mix(this.seed, 0xc4ed));
    this.credentials = {
      name,
      apiKey: KEY_PREFIX + rng.hex(40),
      v2Token: `v2_${rng.hex(40)}`,
      email: `owner@${name}.example.com`,
      password: `pw-${rng.hex(12)}`,
      viewerEmail: `viewer@${name}.example.com`,
      viewerPassword: `pw-${rng.hex(12)}`,
    };
    this.initialKeyId = rng.uuid();
    keys.add(name, 'default', this.credentials.apiKey, HISTORY_END_SEC * 1000, this.initialKeyId);
    this.render = {
      recordingsBaseUrl: spec.recordingsBaseUrl,
      v2NumbersAsNumbers: spec.v2NumbersAsNumbers,
      businessSeed: this.seed,
      v2FractionalUuid: spec.v2FractionalUuid,
    };
    this.numbers = makeNumbers(this.seed, Math.max(1, spec.numbers));
    this.sms = makeSms(this.seed, this.numbers, SMS_PER_BUSINESS);
    const userFolder = `user-${rng.hex(8)}`;
    this.userFolder = userFolder;
    const uuidBase = (spec.index + 1) * 100_000_000;
    // Drawn here, after the user folder, as before: the same seed still gives the same account.
    this.providerAccount = `AC${rng.hex(32)}`;
    this.calls = new CallStore(
      {
        businessSeed: this.seed,
        numbers: this.numbers,
        userFolder,
        v2UuidBase: uuidBase + 1,
        initialCount: spec.calls,
        outboundToNumber: spec.outboundToNumber,
      },
      (call) => callV1Json(call, this.render),
    );
    this.voicemails = new VoicemailStore(
      {
        businessSeed: this.seed,
        numbers: this.numbers,
        userFolder,
        providerAccount: this.providerAccount,
        providerBaseUrl: spec.providerBaseUrl,
        uuidBase: uuidBase + 90_000_001,
        initialCount: spec.voicemails,
      },
      (vm) => voicemailV2Json(vm, this.render),
    );
  }

  get name(): string {
    return this.credentials.name;
  }
}

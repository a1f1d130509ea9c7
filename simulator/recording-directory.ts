import type { BusinessData } from './business.js';
import { recordingIdOf } from './recording-bytes.js';
import { v2UuidText } from './render.js';
import { PROVIDER_RECORDINGS_PATH } from './voicemail-store.js';

/** Path prefix of the media links on either server: `${baseUrl}/media/<user-folder>/recordings/…`. */
export const MEDIA_PREFIX = '/media';

/** The record behind a recording link. */
export interface RecordingTarget {
  business: BusinessData;
  /** Call id or voicemail uuid, as in the truth. */
  recordId: string;
  recordingId: string;
  /** The relative path (`/<user-folder>/recordings/<folder>/<id>.wav`), the media link's tail. */
  recordingPath: string;
  createdAtSec: number;
  /** The record (and so its recording) was deleted upstream. */
  recordDeleted: boolean;
}

const MEDIA_PATH = /^\/([^/]+)\/recordings\/[^/]+\/([^/]+)\.wav$/;
const PROVIDER_PATH = new RegExp(`^${PROVIDER_RECORDINGS_PATH}/([^/]+)/Recordings/([^/]+)\\.wav$`);

/** Calls by recording id, indexed on first use and extended as calls arrive. */
interface CallIndex {
  indexed: number;
  byRecording: Map<string, number>;
}

/**
 * Finds the record behind a recording link. Calls keep no recording id (it is derived from the
 * seed), so each business's calls are indexed once, on the first recording request: a test that
 * never downloads pays nothing.
 */
export class RecordingDirectory {
  readonly #businesses: readonly BusinessData[];
  readonly #calls = new Map<BusinessData, CallIndex>();
  /** Recording ids whose recording alone was deleted (retention): the record stays. */
  readonly #deleted = new Set<string>();

  constructor(businesses: readonly BusinessData[]) {
    this.#businesses = businesses;
  }

  /** A media path below {@link MEDIA_PREFIX}: `/<user-folder>/recordings/<folder>/<id>.wav`. */
  fromMediaPath(path: string): RecordingTarget | undefined {
    const match = MEDIA_PATH.exec(path);
    const business = this.#businesses.find((b) => b.userFolder === match?.[1]);
    if (match === null || business === undefined) return undefined;
    const target = this.#inBusiness(business, match[2] ?? '');
    return target?.recordingPath === path ? target : undefined;
  }

  /** A provider path: `/2010-04-01/Accounts/<account>/Recordings/<id>.wav` (voicemails only). */
  fromProviderPath(path: string): RecordingTarget | undefined {
    const match = PROVIDER_PATH.exec(path);
    const business = this.#businesses.find((b) => b.providerAccount === match?.[1]);
    if (match === null || business === undefined) return undefined;
    return this.#voicemail(business, match[2] ?? '');
  }

  /** A whole link of either kind, or a bare recording id, in any business. */
  fromLink(link: string): RecordingTarget | undefined {
    const recordingId = recordingIdOf(link);
    for (const business of this.#businesses) {
      const target = this.#inBusiness(business, recordingId);
      if (target !== undefined) return target;
    }
    return undefined;
  }

  /** Whether the recording alone was deleted. */
  isDeleted(recordingId: string): boolean {
    return this.#deleted.has(recordingId);
  }

  deleteRecording(recordingId: string): void {
    this.#deleted.add(recordingId);
  }

  #inBusiness(business: BusinessData, recordingId: string): RecordingTarget | undefined {
    return this.#voicemail(business, recordingId) ?? this.#call(business, recordingId);
  }

  #voicemail(business: BusinessData, recordingId: string): RecordingTarget | undefined {
    const found = business.voicemails.byRecordingId(recordingId);
    if (found === undefined) return undefined;
    const vm = found.model;
    return {
      business,
      recordId: v2UuidText(vm.uuid, vm.index, business.render),
      recordingId,
      recordingPath: vm.recordingPath,
      createdAtSec: vm.createdAtSec,
      recordDeleted: found.deleted,
    };
  }

  #call(business: BusinessData, recordingId: string): RecordingTarget | undefined {
    const index = this.#callIndex(business, recordingId);
    if (index === undefined) return undefined;
    const call = business.calls.model(index);
    if (call.recordingPath === null) return undefined;
    return {
      business,
      recordId: call.id,
      recordingId,
      recordingPath: call.recordingPath,
      createdAtSec: call.createdAtSec,
      recordDeleted: business.calls.isDeleted(index),
    };
  }

  #callIndex(business: BusinessData, recordingId: string): number | undefined {
    let index = this.#calls.get(business);
    if (index === undefined) {
      index = { indexed: 0, byRecording: new Map() };
      this.#calls.set(business, index);
    }
    const known = index.byRecording.get(recordingId);
    if (known !== undefined) return known;
    const store = business.calls;
    for (; index.indexed < store.length; index.indexed++) {
      const path = store.model(index.indexed).recordingPath;
      if (path !== null) index.byRecording.set(recordingIdOf(path), index.indexed);
    }
    return index.byRecording.get(recordingId);
  }
}

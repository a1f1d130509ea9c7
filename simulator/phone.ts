import type { Rng } from './prng.js';

/** Real, geographic US area codes, so generated numbers pass libphonenumber validation. */
const AREA_CODES = [
  201, 202, 203, 205, 206, 210, 212, 213, 214, 215, 216, 224, 248, 267, 281, 301, 303, 305, 310, 312, 313, 314, 317, 404, 407, 410, 412, 415, 425, 469, 480,
  502, 503, 512, 602, 608, 612, 614, 617, 646, 702, 703, 704, 713, 718, 720, 727, 773, 801, 808, 813, 818, 832, 904, 916, 917, 919, 949, 971, 972,
] as const;

const TOLL_FREE = [800, 833, 844, 855, 866, 877, 888] as const;

function exchange(rng: Rng): string {
  let nxx = rng.int(200, 999);
  // N11 codes are service codes and 555 is reserved for fiction: neither appears on real lines.
  if (nxx % 100 === 11 || nxx === 555) nxx += 1;
  return String(nxx);
}

function line(rng: Rng): string {
  return String(rng.int(0, 9999)).padStart(4, '0');
}

/** A geographic US number in E.164 (`+1NPANXXXXXX`). */
export function usNumber(rng: Rng): string {
  return `+1${rng.pick(AREA_CODES)}${exchange(rng)}${line(rng)}`;
}

/** A US toll-free number in E.164. */
export function tollFreeNumber(rng: Rng): string {
  return `+1${rng.pick(TOLL_FREE)}${exchange(rng)}${line(rng)}`;
}

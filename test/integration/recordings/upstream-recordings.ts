import type { Simulator } from '../../../simulator/index.js';

/** Every recording link upstream holds now (calls and voicemails), with what the simulator serves for it. */
export function upstreamRecordings(simulator: Simulator) {
  return simulator.businesses.flatMap(({ name }) => {
    const truth = simulator.truth(name);
    return (['calls', 'voicemails'] as const).flatMap((stream) =>
      truth[stream].flatMap((record) => {
        const url = (record.expected as { recording_url?: unknown }).recording_url;
        if (typeof url !== 'string') return [];
        const served = simulator.recording(url);
        if (served === undefined) throw new Error(`the simulator does not know ${url}`);
        return [{ business: name, stream, id: record.id, served }];
      }),
    );
  });
}

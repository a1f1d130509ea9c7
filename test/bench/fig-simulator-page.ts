import { fixed, type BenchContext, type BenchRow } from './result.js';
import { benchSimulatorPage } from './simulator-page.js';

/** The simulator's own serving cost: the upstream side of every figure above. */
export async function benchSimulatorPageRow(ctx: BenchContext): Promise<BenchRow[]> {
  const calls = ctx.quick ? 20_000 : 200_000;
  ctx.log(`simulator page: ${calls} calls`);
  const result = await benchSimulatorPage(calls);
  return [
    {
      figure: `simulator page p50 (500 rec, ${calls / 1000}k calls)`,
      measured: `cold ${fixed(result.coldMedianMs)} ms, warm ${fixed(result.warmMedianMs)} ms`,
      target: '',
      status: 'info',
      details: { ...result },
    },
  ];
}

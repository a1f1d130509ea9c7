import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** `npm run -s <script>` in the checkout: its exit code and all it printed, in order. */
async function npmRun(script: string): Promise<{ code: number | null; output: string }> {
  const child = spawn('npm', ['run', '-s', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, output };
}

// npm test runs the package's checks as a file of its own, the three side by side: one after another
// before the tests they held one core for two minutes and more; in the tests' pool they take the
// cores the integration files leave while they wait. npm run lint is lint:code, then lint:format.
describe.concurrent('the checks npm test runs beside the tests', () => {
  it.each(['typecheck', 'lint:code', 'lint:format'])('npm run %s passes', async (script) => {
    const { code, output } = await npmRun(script);
    expect(code, `npm run ${script}:\n${output}`).toBe(0);
  });
});

import type { Job } from 'bullmq';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createArchiveProcessor, type ArchiveJobData } from './archive-job.js';

const jobOf = (business: string): Job<ArchiveJobData> => ({ id: '1', data: { business } }) as Job<ArchiveJobData>;

describe('createArchiveProcessor', () => {
  it('runs one pass for a configured business, skips one the config dropped, and fails the job when the pass fails', async () => {
    const passes: string[] = [];
    const processor = createArchiveProcessor({
      businesses: new Set(['acme', 'broken']),
      pass: (business) => {
        passes.push(business);
        return business === 'broken' ? Promise.reject(new Error('disk full')) : Promise.resolve();
      },
      logger: pino({ level: 'silent' }),
    });
    await processor(jobOf('acme'));
    await processor(jobOf('gone'));
    await expect(processor(jobOf('broken'))).rejects.toThrow('disk full');
    expect(passes).toEqual(['acme', 'broken']);
  });
});

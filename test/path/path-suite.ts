import { beforeAll, describe, expect, it } from 'vitest';
import { ARCHITECTURE, documentedPath, pathStages, stageLeaves } from './architecture-doc.js';
import { inPathOrder, readPage, type PageReading } from './stage-trace.js';

/**
 * The checks every connector's traced path meets, page by page, against its block of
 * docs/architecture.md (`<!-- <name>-path -->`): `trace` answers the steady pages of one backfill.
 */
export function describeTracedPath(name: string, trace: () => Promise<string[][]>): void {
  describe(`the ${name} record path, page by page (${ARCHITECTURE})`, () => {
    let readings: PageReading[] = [];
    beforeAll(async () => {
      const map = { stages: pathStages(), leaves: stageLeaves() };
      readings = (await trace()).map((page) => readPage(page, map));
    }, 180_000);

    it('cuts the backfill into its steady pages, each one through to the connector', () => {
      expect(readings.length).toBeGreaterThanOrEqual(4);
      for (const reading of readings) expect(reading.firstEntered).toContain('connectors');
    });

    it('enters only files of a listed stage, and never the command line (its roots build the path, they are not on it)', () => {
      expect(readings.map((reading) => reading.unplaced)).toEqual(readings.map(() => []));
      expect(readings.map((reading) => reading.cli)).toEqual(readings.map(() => []));
    });

    it('enters the stages in the documented order', () => {
      const stages = pathStages();
      expect(readings.filter((reading) => !inPathOrder(reading.firstEntered, stages)).map((reading) => reading.firstEntered)).toEqual([]);
      const stated = documentedPath(name).stages.join(' → ');
      expect(readings.map((reading) => reading.firstEntered.join(' → '))).toEqual(readings.map(() => stated));
    });

    // As a set: a connector's requests that go out side by side (HubSpot's contact search beside
    // its upsert) come back in either order, so the order files are first met in may vary.
    it('enters a file after control has reached a later stage only where the docs say why', () => {
      const stated = [...documentedPath(name).reentered].sort();
      expect(readings.map((reading) => [...reading.afterLater].sort())).toEqual(readings.map(() => stated));
    });
  });
}

import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { runHere, runSqlHere } from './execute.js';

const opened: DuckDBInstance[] = [];

async function twoConnections() {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  opened.push(instance);
  const [writer, reader] = [await instance.connect(), await instance.connect()];
  await writer.run('create table t (id integer primary key, name varchar)');
  return { writer, reader };
}

afterEach(() => {
  for (const instance of opened.splice(0)) instance.closeSync();
});

describe('runHere', () => {
  it('runs a bound statement to its end: rows changed, and committed rows another connection reads', async () => {
    const { writer, reader } = await twoConnections();
    const insert = await writer.prepare('insert into t values ($1, $2), ($3, $4)');
    insert.bind([1, 'a', 2, 'b']);
    await writer.run('begin transaction');
    expect((await runHere(insert).getResult()).rowsChanged).toBe(2);
    await runSqlHere(writer, 'commit');
    const select = await reader.prepare('select id, name from t where id >= $1 order by id');
    select.bind([1]);
    expect((await runHere(select).readAll()).getRowObjectsJS()).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
  });

  it("rejects with DuckDB's own words, and the transaction rolls back as with run()", async () => {
    const { writer, reader } = await twoConnections();
    await writer.run('begin transaction');
    await runSqlHere(writer, "insert into t values (1, 'a')");
    const here = await runSqlHere(writer, "insert into t values (1, 'again')").catch((error: unknown) => error);
    await writer.run('rollback');
    await writer.run('begin transaction');
    await writer.run("insert into t values (1, 'a')");
    const pooled = await writer.run("insert into t values (1, 'again')").catch((error: unknown) => error);
    await writer.run('rollback');
    expect(here).toBeInstanceOf(Error);
    expect((here as Error).message).toMatch(/^Constraint Error: .*duplicate key "1"/);
    expect((here as Error).message).toBe((pooled as Error).message);
    expect((await reader.runAndReadAll('select count(*)::integer as n from t')).getRowObjectsJS()).toEqual([{ n: 0 }]);
  });
});

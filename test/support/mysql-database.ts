import mysql from 'mysql2/promise';
import { mysqlUrl, uniqueName } from '../integration/services.js';

/** A database of its own on the test MariaDB (MySQL's schema is a database) and how to drop it. */
export interface FreshMysqlDatabase {
  readonly name: string;
  /** `mysqlUrl` pointing at this database. */
  readonly url: string;
  drop(): Promise<void>;
}

/** Creates `uniqueName(label)` in utf8mb4, next to this worker's `test_wN`. */
export async function freshMysqlDatabase(label: string): Promise<FreshMysqlDatabase> {
  const name = uniqueName(label);
  const url = new URL(mysqlUrl);
  url.pathname = `/${name}`;
  const admin = async (statement: string): Promise<void> => {
    const connection = await mysql.createConnection({ uri: mysqlUrl });
    try {
      await connection.query(statement);
    } finally {
      await connection.end();
    }
  };
  await admin(`create database \`${name}\` character set utf8mb4 collate utf8mb4_bin`);
  return { name, url: url.toString(), drop: () => admin(`drop database if exists \`${name}\``) };
}

// An interrupted test run leaves its kz_test_… databases behind; the next run drops those over an hour old
// (and never one another run may be using).
import { Client } from 'pg';
import { createTestDatabase, DEFAULT_TEST_DATABASE_URL } from '../src/testing';

const serverUrl = process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;

async function admin<T = Record<string, unknown>>(statement: string): Promise<T[]> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rows as T[];
  } finally {
    await client.end();
  }
}

it('the first test database of a run drops leftovers older than an hour and keeps recent ones', async () => {
  const now = Math.floor(Date.now() / 1000);
  const old = `kz_test_${(now - 7200).toString(36)}_aaaaaaaaaaaa`;
  const recent = `kz_test_${(now - 60).toString(36)}_bbbbbbbbbbbb`;
  await admin(`create database ${old}`);
  await admin(`create database ${recent}`);
  try {
    const database = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
    await database.destroy();
    const names = (await admin<{ datname: string }>(`select datname from pg_database where datname in ('${old}', '${recent}')`)).map((r) => r.datname);
    expect(names).toEqual([recent]);
  } finally {
    await admin(`drop database if exists ${old}`);
    await admin(`drop database if exists ${recent}`);
  }
});

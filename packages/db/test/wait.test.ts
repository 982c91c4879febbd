// waitForDatabase: a service started before its database waits for it (Compose, Kubernetes), and gives up on
// errors that waiting cannot fix.
import { connect, databaseProblem, waitForDatabase } from '../src';
import { createTestDatabase, startTcpProxy } from '../src/testing';

test('waits while the database refuses connections, and goes on once it answers', async () => {
  const database = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
  const target = new URL(database.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.pause();
  const db = connect(proxy.urlFor(database.url), { connectTimeoutMs: 2000 });
  try {
    const waits: number[] = [];
    const waiting = waitForDatabase(db, { intervalMs: 100, onWait: (_err, waited) => waits.push(waited) });
    while (waits.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    await proxy.resume();
    await waiting;
    expect(waits.length).toBeGreaterThanOrEqual(2);
  } finally {
    await db.destroy();
    await proxy.close();
    await database.destroy();
  }
});

test('gives up at the deadline, and at once on an error waiting cannot fix', async () => {
  const database = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
  const target = new URL(database.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.pause();
  const down = connect(proxy.urlFor(database.url), { connectTimeoutMs: 1000 });
  const missing = new URL(database.url);
  missing.pathname = '/kz_no_such_database';
  const wrong = connect(missing.toString());
  try {
    await expect(waitForDatabase(down, { timeoutMs: 300, intervalMs: 100 })).rejects.toThrow();
    const waited: unknown[] = [];
    const refused = await waitForDatabase(wrong, { timeoutMs: 30_000, onWait: (err) => waited.push(err) }).catch((err: unknown) => err);
    expect(waited).toEqual([]);
    // One line for the start-up message (issue 39); not a database error: undefined.
    expect(databaseProblem(refused)).toBe('the database does not exist (database "kz_no_such_database" does not exist)');
    const unreachable = Object.assign(new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1:1'), { code: 'ECONNREFUSED' })], ''), { code: 'ECONNREFUSED' });
    expect(databaseProblem(unreachable)).toBe('nothing accepts connections there (connect ECONNREFUSED ::1:1)');
    expect(databaseProblem(new TypeError('x is not a function'))).toBeUndefined();
  } finally {
    await down.destroy();
    await wrong.destroy();
    await proxy.close();
    await database.destroy();
  }
});

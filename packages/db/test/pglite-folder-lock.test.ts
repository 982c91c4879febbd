import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { connect } from '@keyzone/db';

let parent: string;
beforeEach(async () => {
  parent = await mkdtemp(path.join(os.tmpdir(), 'kz-lock-'));
});
afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

test('a PGlite folder held by another live process is refused with a message naming it', async () => {
  const dir = path.join(parent, 'db');
  const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await writeFile(`${dir}.lock`, String(other.pid));
    const db = connect<unknown>(`pglite://${dir}`);
    await expect(sql`select 1`.execute(db)).rejects.toThrow(`PGlite data folder ${dir} is in use by process ${other.pid}`);
    await db.destroy();
  } finally {
    other.kill();
    await new Promise((resolve) => other.once('exit', resolve));
  }

  // The owner is gone: its lock is stale and is taken over.
  const db = connect<unknown>(`pglite://${dir}`);
  await sql`select 1`.execute(db);
  await db.destroy();
  expect(existsSync(`${dir}.lock`)).toBe(false);
});

test('the lock is held while open and released on destroy', async () => {
  const dir = path.join(parent, 'db');
  const db = connect<unknown>(`pglite://${dir}`);
  await sql`select 1`.execute(db);
  expect(existsSync(`${dir}.lock`)).toBe(true);
  await db.destroy();
  expect(existsSync(`${dir}.lock`)).toBe(false);
});

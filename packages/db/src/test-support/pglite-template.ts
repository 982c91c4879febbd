// Migrated PGlite templates for tests, kept on disk so every test file (jest gives each its own
// module registry) and every later run reuses them: $TMPDIR/keyzone-pglite-templates/<kind>-<hash>,
// where the hash covers the migration sources and the PGlite version, so editing a migration
// builds a new template. A clone is a plain folder copy opened by a new PGlite.
// Measured: copying the folder and starting PGlite on it is faster than loadDataDir(dumpDataDir())
// into a folder (the tar is unpacked through PGlite's emulated file system).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Kysely } from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import { openPGlite } from '../pglite';
import { LazyPGliteDialect } from '../pglite-dialect';

const ROOT = path.join(os.tmpdir(), 'keyzone-pglite-templates');
const building = new Map<string, Promise<string>>();

export interface TemplateSpec {
  /** Names the template folder, e.g. 'auth', 'auth-acme', 'dns', 'none'. */
  kind: string;
  /** Migration folders whose sources key the template: 'auth', 'dns' or none. */
  sources: Array<'auth' | 'dns'>;
  migrate: (db: Kysely<unknown>) => Promise<void>;
}

/** Folder of a migrated template, built when missing. */
export function pgliteTemplate(spec: TemplateSpec): Promise<string> {
  const { kind } = spec;
  let dir = building.get(kind);
  if (!dir) {
    dir = findOrBuild(spec);
    dir.catch(() => building.delete(kind)); // a failed build is retried by the next caller
    building.set(kind, dir);
  }
  return dir;
}

async function findOrBuild({ kind, sources, migrate }: TemplateSpec): Promise<string> {
  const dir = path.join(ROOT, `${kind}-${await sourceHash(sources)}`);
  if (await exists(dir)) return dir;
  // Build beside it, then rename: a concurrent reader sees either nothing or a complete folder.
  await mkdir(ROOT, { recursive: true });
  const partial = `${dir}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  const pg = await openPGlite({ dataDir: partial });
  const db = new Kysely<unknown>({ dialect: new LazyPGliteDialect(pg) });
  try {
    await migrate(db);
  } catch (err) {
    await db.destroy();
    await rm(partial, { recursive: true, force: true });
    throw err;
  }
  await db.destroy(); // closes PGlite: a clean shutdown leaves a consistent folder
  try {
    await rename(partial, dir);
  } catch (err) {
    await rm(partial, { recursive: true, force: true });
    if (!(await exists(dir))) throw err; // otherwise another process won the race
  }
  await removeStale(kind, path.basename(dir));
  return dir;
}

/** A fresh temp folder holding a copy of `template`, with PGlite started on it. */
export async function clonePGlite(template: string): Promise<{ dir: string; pg: PGlite }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kz-pglite-'));
  try {
    await cp(template, dir, { recursive: true });
    return { dir, pg: await openPGlite({ dataDir: dir }) };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** The migration runner's and `sources`' migration files, hashed: a template is rebuilt when one changes. */
export async function sourceHash(sources: Array<'auth' | 'dns'>, engine = `pglite ${pgliteVersion()}`): Promise<string> {
  const h = createHash('sha256').update(`${engine}\n`);
  // The runner too (bookkeeping table names), from src/ under jest or dist/ otherwise.
  for (const runner of ['migrate.ts', 'migrate.js']) {
    h.update(await readFile(path.join(__dirname, '..', runner)).catch(() => ''));
  }
  for (const sub of sources) {
    const dir = path.join(__dirname, '..', sub, 'migrations');
    for (const name of (await readdir(dir)).sort()) {
      if (/\.(ts|js)$/.test(name) && !name.endsWith('.d.ts')) h.update(`${sub}/${name}\n`).update(await readFile(path.join(dir, name)));
    }
  }
  return h.digest('hex').slice(0, 20);
}

function pgliteVersion(): string {
  const main = require.resolve('@electric-sql/pglite'); // .../dist/index.cjs
  const pkg = JSON.parse(readFileSync(path.join(path.dirname(main), '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

async function exists(dir: string): Promise<boolean> {
  return stat(dir).then(
    () => true,
    () => false,
  );
}

/** Older templates of the same kind (from earlier migration sources), unused for an hour. */
async function removeStale(kind: string, keep: string): Promise<void> {
  const hourAgo = Date.now() - 3600_000;
  for (const name of await readdir(ROOT)) {
    if (name === keep || !name.startsWith(`${kind}-`) || name.includes('.building-')) continue;
    const info = await stat(path.join(ROOT, name)).catch(() => undefined);
    if (info && info.mtimeMs < hourAgo) await rm(path.join(ROOT, name), { recursive: true, force: true });
  }
}

// PGlite has no postmaster: two processes opening one data folder each write their own WAL and
// corrupt it (the CLI's `create-user` beside a running server did exactly that). A lock file beside
// the folder, holding the owner's pid, makes the second process stop with a clear message instead.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

export class PGliteFolderInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `PGlite data folder ${dataDir} is in use by process ${pid}: an embedded database serves one process at a time. ` +
        'Stop that process first, or use PostgreSQL (DATABASE_URL=postgres://...) to share a database.',
    );
    this.name = 'PGliteFolderInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Claims `<dataDir>.lock` for this process; returns the release function. */
export function claimPGliteFolder(dataDir: string): () => void {
  const lockPath = `${dataDir}.lock`;
  mkdirSync(path.dirname(lockPath), { recursive: true });
  const me = String(process.pid);
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      try {
        writeSync(fd, me);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(lockPath);
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
        throw new PGliteFolderInUseError(dataDir, owner);
      }
      // Left behind by a process that died (or by this one): take it over.
      try {
        unlinkSync(lockPath);
      } catch (unlinkErr) {
        if ((unlinkErr as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkErr;
      }
    }
  }
  return () => {
    if (readOwner(lockPath) === process.pid) {
      try {
        unlinkSync(lockPath);
      } catch {
        // already gone
      }
    }
  };
}

// .env files for both services: the workspace root's (where the deployment guide puts it) and the app's own,
// the later file winning per variable. The process environment wins over both; each loader merges it last.
import fs from 'node:fs';
import path from 'node:path';
import dotenv from 'dotenv';
import { ConfigError } from './errors';

function readDotenv(dir: string): Record<string, string> {
  const file = path.join(dir, '.env');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError([`${file}: cannot be read (${(err as Error).message})`]);
  }
  return dotenv.parse(text);
}

/** The .env files of `dirs` merged, each over the one before; a missing file is no file. */
export function readEnvFiles(dirs: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const dir of new Set(dirs.map((d) => path.resolve(d)))) Object.assign(vars, readDotenv(dir));
  return vars;
}

/** The nearest folder at or above `from` holding pnpm-workspace.yaml (the repository root), if any. */
export function findWorkspaceRoot(from: string): string | undefined {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** [workspace root, cwd] when cwd lies in a workspace, else [cwd]: the folders whose .env a service reads. */
export function envDirsFor(cwd: string): string[] {
  const root = findWorkspaceRoot(cwd);
  return root ? [root, cwd] : [cwd];
}

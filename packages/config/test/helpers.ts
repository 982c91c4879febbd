import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../src';

const made: string[] = [];

/** A fresh temp folder holding the given files (path → content); removed by cleanupTempDirs. */
export function tempDir(files: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kz-config-'));
  made.push(dir);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** The smallest environment loadAuthConfig accepts. */
export const MINIMAL_ENV: Readonly<Record<string, string>> = Object.freeze({
  AUTH_SITE_URL: 'http://localhost:3000',
  AUTH_API_EXTERNAL_URL: 'http://localhost:8081',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  AUTH_JWT_SECRET: 'super-secret-jwt-value-0123456789',
});

/** Runs fn, expects a ConfigError, returns it. */
export function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError, got none');
}

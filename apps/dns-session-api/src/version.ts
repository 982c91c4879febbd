import { readFileSync } from 'node:fs';
import path from 'node:path';

// Read at runtime (src/ under jest, dist/ when built: both sit one level below package.json), so the version in
// meta.api.version is always the package's own and tsc does not need package.json inside rootDir.
export const API_VERSION: string = (
  JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;

// Runs named-checkzone (bind9-utils) on zone text. Missing binary: tests fail under CI=true (the CI script
// installs it) and otherwise report it, never silently pass.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function hasNamedCheckzone(): boolean {
  return spawnSync('named-checkzone', ['-v']).status === 0;
}

export function namedCheckzone(zone: string, text: string): { ok: boolean; output: string } {
  if (!hasNamedCheckzone()) {
    throw new Error('named-checkzone is not installed: apt-get install -y bind9-utils');
  }
  const dir = mkdtempSync(join(tmpdir(), 'kz-zone-'));
  try {
    const file = join(dir, 'zone.db');
    writeFileSync(file, text);
    // -k fail / -n fail: names and integrity problems are errors, not warnings; -i local: integrity
    // checks without DNS lookups of out-of-zone names (deterministic, no network).
    const res = spawnSync('named-checkzone', ['-k', 'fail', '-n', 'fail', '-i', 'local', zone, file], { encoding: 'utf8' });
    return { ok: res.status === 0, output: `${res.stdout}${res.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

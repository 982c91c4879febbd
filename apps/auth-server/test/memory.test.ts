// The heap settings every way of starting the server shares (issue 39): `serve` sets what node's command line did
// not (an operator's own flag wins), and reports what only the command line can set.
import { applyMemoryFlags, MEMORY_FLAGS } from '../src/memory';
import { readFileSync } from 'node:fs';
import path from 'node:path';

it('sets --heap-growing-percent when node was started without it; the semi-space size needs the command line', () => {
  expect(applyMemoryFlags([], '')).toEqual(['--max-semi-space-size=4']);
  expect(applyMemoryFlags([...MEMORY_FLAGS], '')).toEqual([]);
  expect(applyMemoryFlags(['--max-semi-space-size=16'], '--heap-growing-percent=100')).toEqual([]);
  expect(applyMemoryFlags([], '--max_semi_space_size=8')).toEqual([]);
});

it('the package start script and the executable itself pass the same flags as the image', () => {
  const app = path.join(__dirname, '..');
  const flags = MEMORY_FLAGS.join(' ');
  expect((JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start).toBe(`node ${flags} dist/main.js`);
  expect(readFileSync(path.join(app, 'src', 'main.ts'), 'utf8').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${flags}`);
  expect(readFileSync(path.join(app, 'Dockerfile'), 'utf8')).toContain(`CMD ["node", ${MEMORY_FLAGS.map((f) => JSON.stringify(f)).join(', ')}, "dist/main.js"]`);
});

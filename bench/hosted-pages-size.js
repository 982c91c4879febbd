// The hosted sign-in page's weight (issue 40): every script and stylesheet its index.html loads, raw and gzip-compressed
// (level 9, what a compressing proxy or a precompressed asset would serve), against the 150 KB script budget the
// screens share. Reads the build: run `pnpm build` (or the auth server's vite build) first.
'use strict';
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { gzipSync } = require('node:zlib');

const BUDGET_BYTES = 150 * 1024;
const dir = path.join(__dirname, '..', 'apps', 'auth-server', 'dist', 'console', 'hosted');
const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
const assets = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1]);
let scripts = 0;
for (const asset of assets) {
  const raw = readFileSync(path.join(dir, asset));
  const gzipped = gzipSync(raw, { level: 9 }).length;
  if (asset.endsWith('.js')) scripts += gzipped;
  console.log(`${asset}: ${(raw.length / 1024).toFixed(1)} KB raw, ${(gzipped / 1024).toFixed(1)} KB gzip`);
}
console.log(`script total ${(scripts / 1024).toFixed(1)} KB gzip, budget ${BUDGET_BYTES / 1024} KB: ${scripts <= BUDGET_BYTES ? 'within' : 'OVER'}`);
process.exitCode = scripts <= BUDGET_BYTES ? 0 : 1;

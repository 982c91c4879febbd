// The auth server's admin console's weight (issue 43): every script and stylesheet its index.html loads (the first
// screen: the sign-in, and with it every screen, in one bundle), raw and gzip-compressed (level 9), against the
// 150 KB script budget the screens share. Reads the build: run `pnpm build` (or the console's vite build) first.
'use strict';
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { gzipSync, brotliCompressSync } = require('node:zlib');

const BUDGET_BYTES = 150 * 1024;
const dir = path.join(__dirname, '..', 'apps', 'auth-server', 'dist', 'console', 'admin');
const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
const assets = [...html.matchAll(/(?:src|href)="\/admin\/console\/(assets\/[^"]+)"/g)].map((m) => m[1]);
if (assets.length === 0) throw new Error('no asset found in dist/console/admin/index.html');
let scripts = 0;
for (const asset of assets) {
  const raw = readFileSync(path.join(dir, asset));
  const gzipped = gzipSync(raw, { level: 9 }).length;
  const brotli = brotliCompressSync(raw).length;
  if (asset.endsWith('.js')) scripts += gzipped;
  console.log(`${asset}: ${(raw.length / 1024).toFixed(1)} KB raw, ${(gzipped / 1024).toFixed(1)} KB gzip, ${(brotli / 1024).toFixed(1)} KB brotli`);
}
console.log(`script total ${(scripts / 1024).toFixed(1)} KB gzip, budget ${BUDGET_BYTES / 1024} KB: ${scripts <= BUDGET_BYTES ? 'within' : 'OVER'}`);
process.exitCode = scripts <= BUDGET_BYTES ? 0 : 1;

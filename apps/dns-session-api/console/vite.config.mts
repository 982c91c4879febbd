// The DNS console (issue 42): one Vite build into dist/console, served by app.ts at `/`. Relative asset URLs and
// hash routes (#/zones/12), so no client route can ever shadow an API path. JSX is compiled by Vite itself (oxc).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: path.join(here, '..', 'dist', 'console'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  server: { proxy: { '^/(?!@|src|node_modules|index.html).+': 'http://localhost:3000' } },
  logLevel: 'warn',
});

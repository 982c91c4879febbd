// The admin console's build (issue 43): its own entry and output next to the hosted pages', served by
// routes/admin-console.ts at /admin/console/. Hashed files only, no inline script or style (the strict CSP).
import path from 'node:path';

const here = import.meta.dirname;
import { defineConfig } from 'vite';

export default defineConfig({
  root: path.join(here, 'admin'),
  base: '/admin/console/',
  publicDir: false,
  build: {
    outDir: path.join(here, '..', 'dist', 'console', 'admin'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});

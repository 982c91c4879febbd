// The auth server's screens, one Vite entry per folder: hosted/ (sign-in, consent, …; issue 40) now, admin/ (the
// admin console, issue 43) next. Each entry is its own build (`--mode <entry>`, default hosted) into
// dist/console/<entry>, with relative asset URLs, so a page works wherever the server is mounted (/ or /auth/v1).
// Code both share lives in shared/. JSX is compiled by Vite itself (oxc), no plugin.
import path from 'node:path';
import { defineConfig } from 'vite';

const ENTRIES = ['hosted'] as const;

export default defineConfig(({ mode }) => {
  const entry = (ENTRIES as readonly string[]).includes(mode) ? mode : 'hosted';
  return {
    root: path.join(__dirname, entry),
    base: './',
    oxc: { jsx: { runtime: 'automatic' } },
    build: {
      outDir: path.join(__dirname, '..', 'dist', 'console', entry),
      emptyOutDir: true,
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      target: 'es2022',
    },
    logLevel: 'warn',
  };
});

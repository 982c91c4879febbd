// The auth server's screens, one Vite entry per folder, each its own build into dist/console/<entry>: hosted/
// (sign-in, consent, …; issue 40) here (`--mode <entry>`, default hosted), with relative asset URLs, so the pages
// work wherever the server is mounted (/ or /auth/v1); admin/ (issue 43) has its own vite.admin.config.mts (it is
// served at one fixed path). Code both share lives in shared/. JSX is compiled by Vite itself (oxc), no plugin.
import path from 'node:path';
import { defineConfig } from 'vite';

const here = import.meta.dirname;

const ENTRIES = ['hosted'] as const;

export default defineConfig(({ mode }) => {
  const entry = (ENTRIES as readonly string[]).includes(mode) ? mode : 'hosted';
  return {
    root: path.join(here, entry),
    base: './',
    oxc: { jsx: { runtime: 'automatic' } },
    build: {
      outDir: path.join(here, '..', 'dist', 'console', entry),
      emptyOutDir: true,
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      target: 'es2022',
    },
    logLevel: 'warn',
  };
});

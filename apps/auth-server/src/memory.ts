// The auth server's heap settings, the same however it is started (issue 39): the image's CMD passes them to node
// (apps/auth-server/Dockerfile), the package's start script too (`pnpm start`), and `serve` sets what a running
// process still can when node was started without them (`node dist/main.js`). Measured in bench/README.md: after
// load ~110-115 MB with both against 150-200 MB with Node's defaults.
import v8 from 'node:v8';

/** Young generation of 4 MB per semi-space, and a full collection once the old generation is 1.5x its live size. */
export const MEMORY_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=50'] as const;

/**
 * Sets --heap-growing-percent for this process unless node's command line or NODE_OPTIONS named it (an operator's
 * own value wins). V8 reads it at every collection, so setting it now works on every Node version; the semi-space
 * size is fixed when the heap is made, so it only comes from the command line. Returns the flags still missing.
 */
export function applyMemoryFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].map((arg) => arg.split('=')[0]?.replace(/_/g, '-'));
  const missing = MEMORY_FLAGS.filter((flag) => !given.includes(flag.split('=')[0]));
  if (missing.includes('--heap-growing-percent=50')) v8.setFlagsFromString('--heap-growing-percent=50');
  return missing.filter((flag) => flag !== '--heap-growing-percent=50');
}

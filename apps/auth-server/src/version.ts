// The version printed by `main.ts version` and GET /health, from this workspace's package.json.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pkg = require('../package.json') as { version: string; description: string };

export const VERSION = pkg.version;
export const DESCRIPTION = pkg.description;

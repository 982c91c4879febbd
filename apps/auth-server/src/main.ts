#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=50
// The executable: `serve` (default) | `migrate` | `version` | `token` | `keys generate`, each with --help. Only a
// dispatcher: `version` and the usage texts answer from here, and each command's module (cli/*) is loaded only
// when that command runs, so `version` does not load the app (issue 39: it took 3-7 s on a loaded machine).
import { runExecutable } from '@keyzone/config/cli';
import { VERSION } from './version';

const USAGE = `usage: main.js [command] [options]     (node dist/main.js, or pnpm start)
commands:
  serve                        start the server (the default)
  migrate                      apply the database migrations and exit
  version                      print the version
  token --role R [--sub S] [--exp SECONDS]
                               print a JWT signed with the configured key
  keys generate [--alg RS256|ES256|EdDSA]
                               print a new signing key set for AUTH_JWT_KEYS
  help [command]               this text, or a command's (as does <command> --help)`;
const VERSION_USAGE = 'usage: main.js version\n  prints the version of the auth server';

runExecutable({
  usage: USAGE,
  version: VERSION,
  versionUsage: VERSION_USAGE,
  commands: {
    serve: async (command, args) => (await import('./cli/serve.js')).runServer(command as 'serve', args),
    migrate: async (command, args) => (await import('./cli/serve.js')).runServer(command as 'migrate', args),
    token: async (_command, args) => (await import('./cli/token.js')).runToken(args),
    keys: async (_command, args) => (await import('./cli/keys.js')).runKeys(args),
  },
  reportFailure: (err) => console.error(err),
});

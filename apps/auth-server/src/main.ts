#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=50
// The executable: `serve` (default) | `migrate` | `version` | `token` | `keys generate`, each with --help. Only a
// dispatcher: `version` and the usage texts answer from here, and each command's module (cli/*) is loaded only
// when that command runs, so `version` does not load the app (issue 39: it took 3-7 s on a loaded machine).
import { UsageError, wantsHelp } from '@keyzone/config/cli';
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

async function run(command: string, args: string[]): Promise<void> {
  switch (command) {
    case 'version':
    case '--version':
      console.log(wantsHelp(args) ? VERSION_USAGE : VERSION);
      return;
    case 'help':
    case '--help':
    case '-h':
      // `help token` is `token --help`.
      if (args[0] && args[0] !== 'help' && !args[0].startsWith('-')) return run(args[0], ['--help']);
      console.log(USAGE);
      return;
    case 'serve':
    case 'migrate':
      return (await import('./cli/serve.js')).runServer(command, args);
    case 'token':
      return (await import('./cli/token.js')).runToken(args);
    case 'keys':
      return (await import('./cli/keys.js')).runKeys(args);
    default:
      throw new UsageError(USAGE, [`unknown command ${JSON.stringify(command)}`]);
  }
}

const [command = 'serve', ...args] = process.argv.slice(2);
run(command, args).catch((err: unknown) => {
  // Wrong arguments: the usage and what was wrong, exit 2 (a shell's convention for a usage error).
  if (err instanceof UsageError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});

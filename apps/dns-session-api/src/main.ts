#!/usr/bin/env node
// The executable: serve (default) | migrate | version | create-user | import-nictool | publish | import-axfr, each with --help.
// Only a dispatcher: `version` and the usage texts answer from here, and each command's module (cli/*) is loaded
// only when that command runs, so `version` does not load the app (issue 39).
import { runExecutable } from '@keyzone/config/cli';
import { API_VERSION } from './version';

const USAGE = `usage: main.js [command] [options]     (node dist/main.js, or pnpm start)
commands:
  serve                  start the API (the default)
  migrate                apply the database migrations and exit
  version                print the version
  create-user --group G --username U --password P --email E --first-name F --last-name L [--admin]
                         create a user (and its group)
  import-nictool --from mysql://user:pass@host/nictool [--dry-run]
                         import a NicTool 2 installation
  publish --all [--nameserver <id>]
                         queue every zone for publishing
  import-axfr --zone Z --server ADDR[:PORT] --as USER@GROUP [--key ALG:NAME:SECRET]
                         transfer a zone from a running nameserver and import it
  help [command]         this text, or a command's (as does <command> --help)`;
const VERSION_USAGE = 'usage: main.js version\n  prints the version of the DNS API';

runExecutable({
  usage: USAGE,
  version: API_VERSION,
  versionUsage: VERSION_USAGE,
  commands: {
    serve: async (command, args) => (await import('./cli/serve.js')).runServer(command as 'serve', args),
    migrate: async (command, args) => (await import('./cli/serve.js')).runServer(command as 'migrate', args),
    'create-user': async (_command, args) => (await import('./cli/create-user.js')).runCreateUser(args),
    'import-nictool': async (_command, args) => (await import('./cli/import-nictool.js')).runImportNicTool(args),
    publish: async (_command, args) => (await import('./cli/publish.js')).runPublish(args),
    'import-axfr': async (_command, args) => (await import('./cli/import-axfr.js')).runImportAxfr(args),
  },
  // An API error (create-user's 409) as its status and message, a database that is missing, refusing or
  // unreachable as one line naming the problem (as the auth server), anything else as its message.
  reportFailure: async (err) => {
    const [{ ApiError }, { databaseProblem }] = await Promise.all([import('./errors.js'), import('@keyzone/db')]);
    const problem = err instanceof ApiError ? undefined : databaseProblem(err);
    if (problem !== undefined) console.error(`dns-session-api: cannot use the database: ${problem}`);
    else console.error(err instanceof ApiError ? `${err.statusCode} ${err.message}` : err instanceof Error ? err.message : err);
  },
});

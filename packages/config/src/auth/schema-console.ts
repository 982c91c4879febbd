// The admin console the auth server serves at /admin/console/ (issue 43). On by default: it holds no power of its
// own (every action is an admin API call with the signed-in admin's token), so switching it off only removes the
// screens. AAL2 by default: an admin who signed in with a password alone is asked for their second factor first.
import type { EnvReader } from './env-reader';
import type { ConsoleConfig } from './schema';

export function readConsole(r: EnvReader): ConsoleConfig {
  return {
    enabled: r.bool('CONSOLE_ENABLED') ?? true,
    requireAal2: r.bool('CONSOLE_REQUIRE_AAL2') ?? true,
  };
}

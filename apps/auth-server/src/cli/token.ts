// `node dist/main.js token --role service_role [--sub <id>] [--exp <seconds>]`: prints a JWT signed with the
// configured key (JWT_SECRET or JWT_KEYS), for the admin API and for scripts. The admin walk-through uses it.
import { exitOnConfigError, type AuthConfig } from '@keyzone/config';
import { parseCommand, UsageError } from '@keyzone/config/cli';
import { createJwtService } from '@keyzone/tokens';
import { readSigningConfig } from '../config';

export const TOKEN_USAGE = `usage: main.js token --role <role> [--sub <subject>] [--exp <seconds>]
  prints a JWT signed with AUTH_JWT_SECRET or AUTH_JWT_KEYS (in production only those are needed)
  --role   the role claim, e.g. service_role for the admin API (required)
  --sub    the subject claim (a user id)
  --exp    lifetime in seconds (default 3600)`;

export interface TokenArgs {
  role: string;
  sub: string | undefined;
  expiresInSeconds: number;
}

/** The token's claims, or undefined for --help; throws a UsageError for anything else. */
export function parseTokenArgs(args: string[]): TokenArgs | undefined {
  const parsed = parseCommand(args, {
    usage: TOKEN_USAGE, options: { role: { type: 'string', required: true }, sub: { type: 'string' }, exp: { type: 'string' } },
  });
  if (parsed.help) return undefined;
  const { role, sub } = parsed.values;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(role)) throw new UsageError(TOKEN_USAGE, ['--role: letters, digits, _ and - (at most 64)']);
  const exp = parsed.values.exp === undefined ? 3600 : Number(parsed.values.exp);
  if (!Number.isInteger(exp) || exp < 1 || exp > 10 * 365 * 86400) throw new UsageError(TOKEN_USAGE, ['--exp: whole seconds from 1 to ten years']);
  return { role, sub, expiresInSeconds: exp };
}

/** `token`: the signed JWT on stdout. */
export async function runToken(args: string[]): Promise<void> {
  const parsed = parseTokenArgs(args);
  if (!parsed) {
    console.log(TOKEN_USAGE);
    return;
  }
  let config: AuthConfig;
  try {
    config = readSigningConfig(process.env, process.cwd());
  } catch (err) {
    exitOnConfigError(err);
  }
  const signer = await createJwtService({ secret: config.jwt.secret, keys: config.jwt.keys as object[] | undefined, issuer: config.jwt.issuer });
  const claims: Record<string, unknown> = { role: parsed.role, ...(parsed.sub ? { sub: parsed.sub } : {}) };
  console.log(await signer.sign(claims, { expiresInSeconds: parsed.expiresInSeconds }));
}

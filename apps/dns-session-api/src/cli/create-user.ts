// `create-user`: the first user and group of a new installation (or any user), with the same field rules as POST /user.
import { parseCommand, UsageError } from '@keyzone/config/cli';
import { migrateDns } from '@keyzone/db';
import { z } from 'zod';
import { systemClock } from '../clock';
import { serializeLoginUser } from '../serialize';
import { createUserWithGroup, type BootstrapUser } from '../services/directory/bootstrap';
import { email, password, personName, username, groupName } from '../routes/inputs';
import { loadConfig, openDatabase } from './context';

export const CREATE_USER_USAGE = `usage: main.js create-user --group G --username U --password P --email E --first-name F --last-name L [--admin]
  creates a user (and its group when missing) and prints both as JSON
  --group        the group's name (created when missing)
  --username     the login name (signs in as <username>@<group>)
  --password     the password (POST /user's rules)
  --email        the user's address
  --first-name   --last-name   the user's name
  --admin        make the user an administrator of the group`;

const fieldRules = z.object({
  group: groupName,
  username,
  password,
  email,
  'first-name': personName,
  'last-name': personName,
  admin: z.boolean(),
});

/** The user to create, or undefined for --help; throws a UsageError naming each missing or invalid option. */
export function parseCreateUserArgs(args: string[]): BootstrapUser | undefined {
  const required = { type: 'string', required: true } as const;
  const parsed = parseCommand(args, {
    usage: CREATE_USER_USAGE,
    options: { group: required, username: required, password: required, email: required, 'first-name': required, 'last-name': required, admin: { type: 'boolean' } },
  });
  if (parsed.help) return undefined;
  const result = fieldRules.safeParse(parsed.values);
  if (!result.success) {
    throw new UsageError(CREATE_USER_USAGE, result.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`));
  }
  const v = result.data;
  return {
    group: v.group,
    username: v.username,
    password: v.password,
    email: v.email,
    firstName: v['first-name'],
    lastName: v['last-name'],
    isAdmin: v.admin,
  };
}

export async function runCreateUser(args: string[]): Promise<void> {
  const input = parseCreateUserArgs(args);
  if (!input) {
    console.log(CREATE_USER_USAGE);
    return;
  }
  const config = loadConfig();
  const db = openDatabase(config);
  try {
    await migrateDns(db);
    const { user, group } = await createUserWithGroup({ db, clock: systemClock, config }, input);
    console.log(JSON.stringify({ user: { ...serializeLoginUser(user), is_admin: user.is_admin }, group: { id: group.id, name: group.name } }));
  } finally {
    await db.destroy();
  }
}

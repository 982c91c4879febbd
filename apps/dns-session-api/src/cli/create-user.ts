import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { BootstrapUser } from '../services/directory/bootstrap';
import { email, password, personName, username, groupName } from '../routes/inputs';

const usage =
  'usage: main.js create-user --group G --username U --password P --email E --first-name F --last-name L [--admin]';

const argsSchema = z.object({
  group: groupName,
  username,
  password,
  email,
  'first-name': personName,
  'last-name': personName,
  admin: z.boolean(),
});

/** Parses the create-user flags with the same field rules as POST /user; throws a usage message on error. */
export function parseCreateUserArgs(args: string[]): BootstrapUser {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      group: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      email: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      admin: { type: 'boolean', default: false },
    },
  });
  const result = argsSchema.safeParse(values);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  --${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`${usage}\n${problems.join('\n')}`);
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

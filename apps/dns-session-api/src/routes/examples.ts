import { z } from 'zod';
import type { ResponseSpec } from '../http/route';

// The error shape and one documented example per common failure, shared by every route family.

export const errorSchema = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
});

const error = (statusCode: number, errorText: string, message: string, description: string): ResponseSpec => ({
  description,
  schema: errorSchema,
  example: { statusCode, error: errorText, message },
});

export const errorExamples = {
  badPayload: error(400, 'Bad Request', 'Invalid request payload input', 'Missing or invalid payload'),
  badInput: error(400, 'Bad Request', 'Invalid request payload input: "email" Invalid email address', 'Invalid input (fields named outside production)'),
  tooManyLogins: error(429, 'Too Many Requests', 'Too many login attempts; try again later', 'Over the login limit per client or per account (security.yml); see Retry-After'),
  invalidCredentials: error(401, 'Unauthorized', 'Invalid authentication', 'Wrong credentials (never says which part)'),
  missingAuthentication: error(401, 'Unauthorized', 'Missing authentication', 'No valid session cookie'),
  forbidden: error(403, 'Forbidden', 'You may not access this user: it belongs to a group outside yours', 'Outside your group subtree, or not an administrator'),
  notFound: (what: string) => error(404, 'Not Found', `${what} not found`, `Unknown ${what.toLowerCase()} id`),
  conflict: (message: string) => error(409, 'Conflict', message, 'Conflicts with an existing object'),
};

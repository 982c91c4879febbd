// Admin tokens for tests: a JWT with role service_role signed by the test server's own JwtService
// (its sub is not a user, as with a Supabase service key).
import type { TestServer } from '../helpers/server';
import { call, type RequestOptions } from '../helpers/http';

export function adminToken(server: TestServer, role = 'service_role'): Promise<string> {
  return server.deps.jwt.sign({ sub: 'admin-test', role, aud: 'authenticated' }, { expiresInSeconds: 3600, now: server.clock.now() });
}

/** A call with the admin bearer token. */
export async function adminCall(server: TestServer, method: string, path: string, options: RequestOptions = {}) {
  return call(server.url, method, path, { ...options, token: options.token ?? (await adminToken(server)) });
}

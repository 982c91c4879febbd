// Auth hooks as PostgreSQL functions (issue 29): `pg-functions://postgres/<schema>/<function>` is called with the
// payload as jsonb in the service's database, through @supabase/auth-js sign-ins.
import { AuthClient } from '@supabase/auth-js';
import { sql } from 'kysely';
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { claimsOf, uniqueEmail } from '../helpers/users';

let server: TestServer;
const PASSWORD = 'password-123';

beforeAll(async () => {
  server = await startTestServer({
    env: {
      MAILER_AUTOCONFIRM: 'true',
      HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: 'true', HOOK_CUSTOM_ACCESS_TOKEN_URI: 'pg-functions://postgres/hooks/custom_access_token',
      HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED: 'true', HOOK_PASSWORD_VERIFICATION_ATTEMPT_URI: 'pg-functions://postgres/hooks/password_attempt',
    },
  });
  // What a deployment writes: a role table the claims come from, and a lock-out list the password hook reads.
  await sql`create schema hooks`.execute(server.deps.db);
  await sql`create table hooks.user_roles (user_id uuid primary key, user_role text not null)`.execute(server.deps.db);
  await sql`create table hooks.locked (user_id uuid primary key)`.execute(server.deps.db);
  await sql`
    create function hooks.custom_access_token(event jsonb) returns jsonb language plpgsql stable as $$
    declare
      role_name text;
    begin
      if (event->'claims'->'user_metadata'->>'explode') = 'yes' then
        raise exception 'the claims hook failed on purpose';
      end if;
      select user_role into role_name from hooks.user_roles where user_id = (event->>'user_id')::uuid;
      return jsonb_build_object('claims', jsonb_set(event->'claims', '{user_role}', coalesce(to_jsonb(role_name), 'null'::jsonb)));
    end $$`.execute(server.deps.db);
  await sql`
    create function hooks.password_attempt(event jsonb) returns jsonb language sql stable as $$
      select case when exists (select 1 from hooks.locked where user_id = (event->>'user_id')::uuid)
        then jsonb_build_object('decision', 'reject', 'message', 'This account is locked')
        else jsonb_build_object('decision', 'continue') end
    $$`.execute(server.deps.db);
});

afterAll(() => server?.close());

const client = () => new AuthClient({ url: server.url, persistSession: false, autoRefreshToken: false, detectSessionInUrl: false });

it("the function's claims are in the token; a failing function issues none", async () => {
  const auth = client();
  const email = uniqueEmail('pg-hook');
  const signUp = await auth.signUp({ email, password: PASSWORD });
  expect(signUp.error).toBeNull();
  const userId = signUp.data.user!.id;
  expect(claimsOf(signUp.data.session!.access_token)).toMatchObject({ sub: userId, user_role: null });

  await sql`insert into hooks.user_roles values (${userId}, 'admin')`.execute(server.deps.db);
  const signIn = await auth.signInWithPassword({ email, password: PASSWORD });
  expect(claimsOf(signIn.data.session!.access_token)).toMatchObject({ sub: userId, user_role: 'admin', role: 'authenticated' });
  expect((await auth.getClaims()).data?.claims.user_role).toBe('admin');

  const exploding = uniqueEmail('pg-explode');
  const failed = await call(server.url, 'POST', '/signup', { body: { email: exploding, password: PASSWORD, data: { explode: 'yes' } } });
  expect(failed.status).toBe(500);
  expect(failed.body.msg).toBe('Error running hook URI: pg-functions://postgres/hooks/custom_access_token');
  expect(failed.body.access_token).toBeUndefined();
});

it('the password function locks an account out', async () => {
  const auth = client();
  const email = uniqueEmail('pg-locked');
  const userId = (await auth.signUp({ email, password: PASSWORD })).data.user!.id;
  await sql`insert into hooks.locked values (${userId})`.execute(server.deps.db);
  const refused = await auth.signInWithPassword({ email, password: PASSWORD });
  expect(refused.error).toMatchObject({ status: 400, code: 'invalid_credentials', message: 'This account is locked' });
  await sql`delete from hooks.locked where user_id = ${userId}`.execute(server.deps.db);
  expect((await auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
});

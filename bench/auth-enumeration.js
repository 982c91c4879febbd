#!/usr/bin/env node
// Does the answer time tell a known address from an unknown one? (issue 11)
//
//   /recover    a confirmed address vs an address with no account
//   /signup     an address that is already confirmed vs a new one
//   /otp        a confirmed address (a magic link) vs a new one (a user is created)
//   /magiclink  the same through /magiclink
//
// 50 tries of each (BENCH_TRIES), alternating known and unknown so both see the same machine
// load, one request at a time; the medians must be within 10 %. The server runs with its
// production settings for the slow parts: bcrypt cost 10 and real SMTP (an in-process smtp-server
// that accepts everything), autoconfirm off. Mail is delivered by the outbox after the answer.
//
//   node bench/auth-enumeration.js      (PostgreSQL at BENCH_DATABASE_URL, built packages: pnpm build)
//
// Exit code 1 when a pair is more than 10 % apart.
'use strict';

const { createRequire } = require('node:module');
const { randomBytes } = require('node:crypto');
const { runStatement } = require('./support');

const fromAuth = createRequire(require.resolve('@keyzone/auth-server/package.json'));
const { createApp } = require('@keyzone/auth-server/dist/app');
const { createMailer } = require('@keyzone/auth-server/dist/mail/mailer');
const { systemClock } = require('@keyzone/auth-server/dist/clock');
const { loadAuthConfig } = require('@keyzone/config');
const { connect, migrateAuth } = require('@keyzone/db');
const { createJwtService } = fromAuth('@keyzone/tokens');
const { SMTPServer } = fromAuth('smtp-server');
const pino = fromAuth('pino');

const BASE_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const TRIES = Number(process.env.BENCH_TRIES || 50);
const LIMIT = 0.1;

function withDatabase(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

function listen(server, ...args) {
  return new Promise((resolve) => {
    const s = server.listen(0, '127.0.0.1', ...args, () => resolve(s));
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(url, path, body) {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.text();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  return ms;
}

async function main() {
  const smtp = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false, onData: (stream, _s, cb) => stream.on('end', () => cb()).resume() });
  await new Promise((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpPort = smtp.server.address().port;

  const dbName = `kz_bench_enum_${randomBytes(4).toString('hex')}`;
  await runStatement(BASE_URL, `CREATE DATABASE ${dbName}`);
  const url = withDatabase(BASE_URL, dbName);
  const db = connect(url, { maxPoolSize: 10 });
  let server;
  let mailer;
  try {
    await migrateAuth(db);
    const config = loadAuthConfig({
      cwd: __dirname,
      env: {
        AUTH_SITE_URL: 'http://localhost:3000',
        AUTH_API_EXTERNAL_URL: 'http://localhost:9999',
        AUTH_DATABASE_URL: url,
        AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
        AUTH_BCRYPT_COST: '10',
        AUTH_LOG_LEVEL: 'error',
        AUTH_SMTP_HOST: '127.0.0.1',
        AUTH_SMTP_PORT: String(smtpPort),
        AUTH_SMTP_ADMIN_EMAIL: 'auth@bench.test',
        AUTH_RATE_LIMIT_EMAIL_SENT: '100000',
        AUTH_RATE_LIMIT_EMAIL_SENT_PER_CLIENT: '100000',
        AUTH_RATE_LIMIT_OTP: '100000',
      },
    });
    const jwt = await createJwtService({ secret: config.jwt.secret, clock: systemClock.now });
    const log = pino({ level: 'silent' });
    mailer = createMailer({ config, log, production: true, db });
    mailer.outbox.start();
    server = await listen(createApp({ config, db, jwt, mailer, sms: undefined, clock: systemClock, log }));
    const base = `http://127.0.0.1:${server.address().port}`;

    // Confirmed accounts: one per /recover try (SMTP_MAX_FREQUENCY holds back a second mail).
    const known = Array.from({ length: TRIES }, (_, i) => `known-${i}@bench.test`);
    const knownOtp = Array.from({ length: TRIES }, (_, i) => `known-otp-${i}@bench.test`);
    const knownMagic = Array.from({ length: TRIES }, (_, i) => `known-magic-${i}@bench.test`);
    for (const email of [...known, ...knownOtp, ...knownMagic]) await timed(base, '/signup', { email, password: 'bench-password-1' });
    await db.updateTable('auth.users').set({ email_confirmed_at: new Date() }).execute();
    const newAddress = (i) => `new-${i}-${randomBytes(3).toString('hex')}@bench.test`;

    // Warm-up of both paths.
    await timed(base, '/recover', { email: newAddress('w') });
    await timed(base, '/signup', { email: newAddress('w'), password: 'bench-password-1' });

    const pairs = [
      { name: '/recover', known: (i) => timed(base, '/recover', { email: known[i] }), unknown: (i) => timed(base, '/recover', { email: newAddress(i) }), labels: ['known', 'unknown'] },
      {
        name: '/signup',
        known: (i) => timed(base, '/signup', { email: known[i], password: 'bench-password-1' }),
        unknown: (i) => timed(base, '/signup', { email: newAddress(i), password: 'bench-password-1' }),
        labels: ['existing confirmed', 'new'],
      },
      // A new address gets a user with a random password (bcrypt): the known one must cost the same (issue 26).
      { name: '/otp', known: (i) => timed(base, '/otp', { email: knownOtp[i] }), unknown: (i) => timed(base, '/otp', { email: newAddress(`o${i}`) }), labels: ['known', 'unknown'] },
      { name: '/magiclink', known: (i) => timed(base, '/magiclink', { email: knownMagic[i] }), unknown: (i) => timed(base, '/magiclink', { email: newAddress(`m${i}`) }), labels: ['known', 'unknown'] },
    ];
    let failed = false;
    for (const pair of pairs) {
      const a = [];
      const b = [];
      for (let i = 0; i < TRIES; i++) {
        // Alternate which goes first, so neither always follows the other's background mail.
        if (i % 2 === 0) {
          a.push(await pair.known(i));
          b.push(await pair.unknown(i));
        } else {
          b.push(await pair.unknown(i));
          a.push(await pair.known(i));
        }
      }
      const ma = median(a);
      const mb = median(b);
      const diff = Math.abs(ma - mb) / Math.max(ma, mb);
      const ok = diff <= LIMIT;
      if (!ok) failed = true;
      console.log(
        `  ${pair.name.padEnd(9)} ${pair.labels[0]} median ${ma.toFixed(1)} ms, ${pair.labels[1]} median ${mb.toFixed(1)} ms` +
          `  → ${(diff * 100).toFixed(1)} % apart (goal <= 10 %) ${ok ? 'met' : 'NOT met'}`,
      );
    }
    if (failed) process.exitCode = 1;
  } finally {
    if (server) await new Promise((resolve) => server.close(resolve));
    if (mailer) await mailer.close();
    await db.destroy();
    await runStatement(BASE_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    smtp.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

// The generic YAML environments loader: section selection, deep merge, validation messages.
import path from 'node:path';
import { z } from 'zod';
import { loadYamlEnvironments } from '../src';
import { cleanupTempDirs, configError, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const schema = z.strictObject({
  http: z.strictObject({
    host: z.string().default('localhost'),
    port: z.number().int().default(3000),
    cookie: z.strictObject({ name: z.string(), secure: z.boolean(), ttl: z.number() }).optional(),
    tags: z.array(z.string()).default([]),
  }).prefault({}),
  mysql: z.strictObject({ user: z.string(), password: z.string().optional() }).optional(),
});

const HTTP_YML = `
default:
  host: localhost
  port: 3000
  cookie:
    name: sid-nictool
    secure: true
    ttl: 3600
  tags: [a, b]
production:
  port: 8080
development:
  cookie:
    secure: false
test:
  cookie:
    secure: false
    ttl: 60
  tags: [t]
`;

describe('loadYamlEnvironments', () => {
  const dir = () => tempDir({ 'http.yml': HTTP_YML, 'mysql.yaml': 'default:\n  user: nictool\ntest:\n  user: root\n  password: root\n' });

  it.each([
    ['production', { host: 'localhost', port: 8080, cookie: { name: 'sid-nictool', secure: true, ttl: 3600 }, tags: ['a', 'b'] }],
    ['development', { host: 'localhost', port: 3000, cookie: { name: 'sid-nictool', secure: false, ttl: 3600 }, tags: ['a', 'b'] }],
    ['test', { host: 'localhost', port: 3000, cookie: { name: 'sid-nictool', secure: false, ttl: 60 }, tags: ['t'] }],
  ])('%s: its section deep-merged over default; arrays replace', (nodeEnv, http) => {
    expect(loadYamlEnvironments({ dir: dir(), nodeEnv, schema }).http).toEqual(http);
  });

  it('keys the result by file basename (.yml or .yaml)', () => {
    expect(loadYamlEnvironments({ dir: dir(), nodeEnv: 'test', schema }).mysql).toEqual({ user: 'root', password: 'root' });
    expect(loadYamlEnvironments({ dir: dir(), nodeEnv: 'production', schema }).mysql).toEqual({ user: 'nictool' });
  });

  it('defaults to development', () => {
    expect(loadYamlEnvironments({ dir: dir(), schema }).http.cookie?.secure).toBe(false);
  });

  it('null or empty environment values keep the default (NicTool semantics)', () => {
    const d = tempDir({ 'http.yml': 'default:\n  port: 3000\n  host: example\nproduction:\n  port:\n  host: ~\ntest:\n' });
    expect(loadYamlEnvironments({ dir: d, nodeEnv: 'production', schema }).http).toMatchObject({ port: 3000, host: 'example' });
    expect(loadYamlEnvironments({ dir: d, nodeEnv: 'test', schema }).http.port).toBe(3000);
  });

  it('a null default value falls back to the schema default', () => {
    const d = tempDir({ 'http.yml': 'default:\n  port:\n' });
    expect(loadYamlEnvironments({ dir: d, nodeEnv: 'test', schema }).http.port).toBe(3000);
  });

  it('names file, section and key path for each bad value', () => {
    const d = tempDir({
      'http.yml': 'default:\n  port: 3000\n  cookie: { name: x, secure: true, ttl: 1 }\ntest:\n  port: "abc"\n  cookie:\n    secure: maybe\n  prot: 1\n',
    });
    expect(configError(() => loadYamlEnvironments({ dir: d, nodeEnv: 'test', schema })).problems).toEqual([
      'http.yml: test.port: expected a number, got "abc"',
      'http.yml: test.cookie.secure: expected a boolean, got "maybe"',
      'http.yml: test.prot: unknown setting',
    ]);
    // The same bad port in default is reported against default.
    const e = tempDir({ 'http.yml': 'default:\n  port: "abc"\n' });
    expect(configError(() => loadYamlEnvironments({ dir: e, nodeEnv: 'production', schema })).message)
      .toBe('Invalid configuration:\n  http.yml: default.port: expected a number, got "abc"');
  });

  it('reports required keys, unknown files, unknown sections and a missing default', () => {
    const d = tempDir({
      'mysql.yml': 'default:\n  password: x\n',
      'extra.yml': 'default: {}\n',
      'http.yml': 'defaults:\n  port: 1\nstaging: {}\n',
    });
    expect(configError(() => loadYamlEnvironments({ dir: d, nodeEnv: 'test', schema })).problems).toEqual([
      'http.yml: unknown section "defaults" (expected default, production, development, test)',
      'http.yml: unknown section "staging" (expected default, production, development, test)',
      'http.yml: missing the default section',
    ]);
    const e = tempDir({ 'mysql.yml': 'default:\n  password: x\n', 'extra.yaml': 'default: {}\n' });
    expect(configError(() => loadYamlEnvironments({ dir: e, nodeEnv: 'test', schema })).problems).toEqual([
      'mysql.yml: default.user: required',
      'extra.yaml: unknown configuration file',
    ]);
  });

  it('refuses two files for one name', () => {
    const d = tempDir({ 'http.yml': 'default: {}\n', 'http.yaml': 'default: {}\n' });
    expect(configError(() => loadYamlEnvironments({ dir: d, nodeEnv: 'test', schema })).problems)
      .toEqual(['http.yml: duplicates http.yaml']);
  });

  it('reports invalid YAML, a non-mapping file, a missing folder and a bad NODE_ENV', () => {
    const d = tempDir({ 'http.yml': 'default:\n  port: [1\n', 'mysql.yml': '- a\n- b\n' });
    const list = configError(() => loadYamlEnvironments({ dir: d, nodeEnv: 'test', schema })).problems;
    expect(list).toHaveLength(2);
    expect(list[0]).toMatch(/^http\.yml: invalid YAML \(/);
    expect(list[1]).toBe('mysql.yml: expected a mapping of sections (default, production, development, test)');
    const missing = path.join(tempDir(), 'nope');
    expect(configError(() => loadYamlEnvironments({ dir: missing, nodeEnv: 'test', schema })).problems)
      .toEqual([`${missing}: configuration folder cannot be read (ENOENT)`]);
    expect(configError(() => loadYamlEnvironments({ dir: tempDir(), nodeEnv: 'staging', schema })).problems)
      .toEqual(['NODE_ENV: expected one of production, development, test, got "staging"']);
  });
});

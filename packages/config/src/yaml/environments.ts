// loadYamlEnvironments: a folder of <name>.yml files, each with a `default` section and optional
// production / development / test sections. The NODE_ENV section is deep-merged over `default`, the
// result keyed by file basename and validated with a zod schema; problems name file, section and key path.
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors';
import { quote } from '../coerce';
import { DNS_ENVIRONMENTS, type DnsEnvironment } from '../dns/schema';
import { deepMerge, getPath, isPlainObject, stripNulls } from './merge';

export const SECTIONS = ['default', ...DNS_ENVIRONMENTS] as const;

export interface LoadYamlEnvironmentsOptions<S extends z.ZodType> {
  /** The folder holding the *.yml (or *.yaml) files. */
  dir: string;
  /**
   * Folders read after `dir`: a file there replaces the one of the same name from `dir` (or an earlier overlay).
   * A container mounts a folder holding only its publish.yml and auth.yml this way and keeps the shipped rest.
   */
  overlayDirs?: string[];
  /**
   * When given, `${NAME}` in a string value is replaced by that environment variable (after the section merge, so
   * only the sections NODE_ENV picks need it set): secrets stay out of the files. `$${` writes a literal `${`.
   */
  env?: Record<string, string | undefined>;
  /** Which section to merge over `default`; default 'development'. */
  nodeEnv?: string;
  /** Schema of the merged tree: one key per file basename (snake_case keys inside, as in the files). */
  schema: S;
}

interface FileData { fileName: string; sections: Record<string, unknown> }

/** Checks NODE_ENV; undefined when it is not one of the sections. */
export function parseNodeEnv(value: string | undefined): DnsEnvironment | undefined {
  const v = (value ?? '').trim() === '' ? 'development' : (value ?? '').trim();
  return DNS_ENVIRONMENTS.find((e) => e === v);
}

function readFiles(dir: string, problems: string[], files = new Map<string, FileData>()): Map<string, FileData> {
  const fromThisDir = new Set<string>();
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => /\.ya?ml$/.test(n)).sort();
  } catch (err) {
    problems.push(`${dir}: configuration folder cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    return files;
  }
  for (const fileName of names) {
    const key = fileName.replace(/\.ya?ml$/, '');
    if (fromThisDir.has(key)) {
      problems.push(`${fileName}: duplicates ${files.get(key)?.fileName}`);
      continue;
    }
    fromThisDir.add(key);
    let doc: unknown;
    try {
      doc = yaml.load(fs.readFileSync(path.join(dir, fileName), 'utf8'), { filename: fileName });
    } catch (err) {
      problems.push(`${fileName}: invalid YAML (${(err as Error).message.split('\n')[0]})`);
      continue;
    }
    if (doc === undefined || doc === null) doc = {};
    if (!isPlainObject(doc)) {
      problems.push(`${fileName}: expected a mapping of sections (${SECTIONS.join(', ')})`);
      continue;
    }
    for (const section of Object.keys(doc)) {
      if (!(SECTIONS as readonly string[]).includes(section)) {
        problems.push(`${fileName}: unknown section ${quote(section)} (expected ${SECTIONS.join(', ')})`);
      }
    }
    if (!('default' in doc)) problems.push(`${fileName}: missing the default section`);
    for (const section of SECTIONS) {
      const body = doc[section];
      if (body !== undefined && body !== null && !isPlainObject(body)) {
        problems.push(`${fileName}: ${section}: expected a mapping`);
      }
    }
    files.set(key, { fileName, sections: doc });
  }
  return files;
}

const NOUNS: Record<string, string> = {
  number: 'a number', string: 'a string', boolean: 'a boolean', object: 'a mapping', array: 'a list', int: 'an integer',
};

/** Keys whose values are never echoed. */
function isSecretKey(key: PropertyKey | undefined): boolean {
  return /secret|pass|token|key|url/i.test(String(key ?? ''));
}

function bound(origin: string, relation: string, limit: unknown): string {
  if (origin === 'string') return `${relation} ${String(limit)} characters`;
  if (origin === 'array') return `${relation} ${String(limit)} items`;
  return `a number of ${relation} ${String(limit)}`;
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  const last = issue.path[issue.path.length - 1];
  const shown = typeof value === 'string' ? quote(value) : String(value);
  const got = value === undefined || isSecretKey(last) || typeof value === 'object' ? '' : `, got ${shown}`;
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined ? 'required' : `expected ${NOUNS[issue.expected] ?? issue.expected}${got}`;
    case 'too_small':
      return `expected ${bound(issue.origin, 'at least', issue.minimum)}${got}`;
    case 'too_big':
      return `expected ${bound(issue.origin, 'at most', issue.maximum)}${got}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => String(v)).join(', ')}${got}`;
    default:
      return `${issue.message}${got}`;
  }
}

const REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `${NAME}` in every string of `tree` replaced by env.NAME; an unset or empty one is reported, not replaced. */
function interpolate(
  tree: unknown,
  env: Record<string, string | undefined>,
  missing: (name: string, keys: string[]) => void,
  keys: string[] = [],
): unknown {
  if (typeof tree === 'string') {
    return tree.replace(REFERENCE, (whole, escaped: string, name: string) => {
      if (escaped) return whole.slice(1);
      const value = env[name];
      if (value === undefined || value === '') {
        missing(name, keys);
        return whole;
      }
      return value;
    });
  }
  if (Array.isArray(tree)) return tree.map((item, i) => interpolate(item, env, missing, [...keys, String(i)]));
  if (!isPlainObject(tree)) return tree;
  return Object.fromEntries(Object.entries(tree).map(([key, value]) => [key, interpolate(value, env, missing, [...keys, key])]));
}

/** Validates the merged tree; returns the value or the problems (never throws for bad input). */
export function parseYamlEnvironments<S extends z.ZodType>(
  options: LoadYamlEnvironmentsOptions<S>,
): { value?: z.output<S>; problems: string[] } {
  const problems: string[] = [];
  const env = parseNodeEnv(options.nodeEnv);
  if (!env) return { problems: [`NODE_ENV: expected one of ${DNS_ENVIRONMENTS.join(', ')}, got ${quote(options.nodeEnv ?? '')}`] };
  const files = readFiles(options.dir, problems);
  for (const overlay of options.overlayDirs ?? []) readFiles(overlay, problems, files);
  if (problems.length > 0) return { problems };

  const merged: Record<string, unknown> = {};
  for (const [key, file] of files) {
    const tree = stripNulls(deepMerge(file.sections.default ?? {}, file.sections[env]));
    merged[key] = options.env ? interpolate(tree, options.env, (name, keys) =>
      problems.push(`${file.fileName}: ${keys.join('.')}: the environment variable ${name} is not set`)) : tree;
  }
  if (problems.length > 0) return { problems };
  const result = options.schema.safeParse(merged);
  if (result.success) return { value: result.data, problems };

  // Name the file and the section a bad value came from (the environment's when it set the key).
  const where = (keys: PropertyKey[]): string => {
    const [fileKey, ...rest] = keys;
    const file = files.get(String(fileKey));
    if (!file) return `${String(fileKey)}.yml`;
    const fromEnv = getPath(file.sections[env], rest.filter((k) => typeof k !== 'symbol'));
    const section = fromEnv !== undefined && fromEnv !== null ? env : 'default';
    return rest.length === 0 ? file.fileName : `${file.fileName}: ${section}.${rest.map(String).join('.')}`;
  };
  for (const issue of result.error.issues) {
    const keys = issue.path as PropertyKey[];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push(keys.length === 0 ? `${files.get(key)?.fileName ?? key}: unknown configuration file` : `${where([...keys, key])}: unknown setting`);
      }
      continue;
    }
    problems.push(`${where(keys)}: ${describeIssue(issue, getPath(merged, keys))}`);
  }
  return { problems };
}

export function loadYamlEnvironments<S extends z.ZodType>(options: LoadYamlEnvironmentsOptions<S>): z.output<S> {
  const { value, problems } = parseYamlEnvironments(options);
  if (problems.length > 0 || value === undefined) throw new ConfigError(problems);
  return value;
}

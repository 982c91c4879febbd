// Command-line options for both services' sub-commands: `--help`/`-h` anywhere asks for the usage, and every
// problem is worded for a person ("--role: required", "unknown option --frob") rather than Node's parser or a
// schema. Loaded by main.ts before anything else (its own entry point, `@keyzone/config/cli`), so it imports
// nothing but node:util.
import { parseArgs } from 'node:util';

export interface OptionSpec {
  type: 'string' | 'boolean';
  required?: boolean;
}

export interface CommandSpec<O extends Record<string, OptionSpec>> {
  /** The usage text printed for --help and above every problem. */
  usage: string;
  options: O;
  /** Words expected after the command (e.g. `keys generate`); none when omitted. */
  positionals?: { count: number; describe: string };
}

type Values<O extends Record<string, OptionSpec>> = {
  [K in keyof O]: O[K]['type'] extends 'boolean' ? boolean : O[K]['required'] extends true ? string : string | undefined;
};

export type ParsedCommand<O extends Record<string, OptionSpec>> =
  | { help: true }
  | { help: false; values: Values<O>; positionals: string[] };

/** Wrong arguments: main.ts prints the message (usage, then one line per problem) and exits 2. */
export class UsageError extends Error {
  constructor(readonly usage: string, readonly problems: string[]) {
    super([usage, ...problems.map((p) => `  ${p}`)].join('\n'));
    this.name = 'UsageError';
  }
}

/** True when the arguments ask for help (`--help`, `-h`, or `help` as the first word). */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  return options.includes('--help') || options.includes('-h') || args[0] === 'help';
}

export function parseCommand<O extends Record<string, OptionSpec>>(args: string[], spec: CommandSpec<O>): ParsedCommand<O> {
  if (wantsHelp(args)) return { help: true };
  // Not strict: unknown options and missing values come back as tokens, to be worded here.
  const types = Object.fromEntries(Object.entries(spec.options).map(([name, option]) => [name, { type: option.type }]));
  const { tokens } = parseArgs({ args, options: types, strict: false, allowPositionals: true, tokens: true });
  const problems: string[] = [];
  const strings: Record<string, string> = {};
  const flags: Record<string, boolean> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const option = spec.options[token.name];
    if (!option) {
      problems.push(`unknown option ${token.rawName}`);
    } else if (option.type === 'boolean') {
      if (token.value !== undefined) problems.push(`${token.rawName}: takes no value`);
      flags[token.name] = true;
    } else if (token.value === undefined || token.value === '') {
      problems.push(`${token.rawName}: a value is required`);
    } else {
      strings[token.name] = token.value;
    }
  }
  for (const [name, option] of Object.entries(spec.options)) {
    if (option.required && strings[name] === undefined && !problems.some((p) => p.startsWith(`--${name}:`))) problems.push(`--${name}: required`);
  }
  const expected = spec.positionals?.count ?? 0;
  if (positionals.length !== expected) {
    problems.push(expected === 0 ? `unexpected argument ${JSON.stringify(positionals[0])}` : `expected ${spec.positionals?.describe}`);
  }
  if (problems.length > 0) throw new UsageError(spec.usage, problems);
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, option] of Object.entries(spec.options)) values[name] = option.type === 'boolean' ? (flags[name] ?? false) : strings[name];
  return { help: false, values: values as Values<O>, positionals };
}

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

export interface Executable {
  /** The top-level usage text (printed by `help`, `--help`, `-h`). */
  usage: string;
  version: string;
  versionUsage: string;
  /** Each command's runner, loaded only when that command runs (so `version` loads nothing else). */
  commands: Readonly<Record<string, (command: string, args: string[]) => Promise<void>>>;
  /** How a failure other than a usage error is printed (exit 1 follows). */
  reportFailure(err: unknown): void | Promise<void>;
}

/**
 * Runs a service's executable: `version`, `help [command]` and `<command> --help` answer here; a usage error prints
 * the usage and what was wrong and exits 2 (a shell's convention), any other failure is reported and exits 1.
 */
export function runExecutable(executable: Executable, argv: readonly string[] = process.argv.slice(2)): void {
  const run = async (command: string, args: string[]): Promise<void> => {
    if (command === 'version' || command === '--version') {
      console.log(wantsHelp(args) ? executable.versionUsage : executable.version);
      return;
    }
    if (command === 'help' || command === '--help' || command === '-h') {
      // `help publish` is `publish --help`.
      if (args[0] && args[0] !== 'help' && !args[0].startsWith('-')) return run(args[0], ['--help']);
      console.log(executable.usage);
      return;
    }
    const runner = Object.hasOwn(executable.commands, command) ? executable.commands[command] : undefined;
    if (!runner) throw new UsageError(executable.usage, [`unknown command ${JSON.stringify(command)}`]);
    return runner(command, args);
  };
  const [command = 'serve', ...args] = argv;
  run(command, args).catch(async (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(err.message);
      process.exit(2);
    }
    await executable.reportFailure(err);
    process.exit(1);
  });
}

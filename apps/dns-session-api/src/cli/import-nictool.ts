import { parseArgs } from 'node:util';

const usage = 'usage: main.js import-nictool --from mysql://user:pass@host[:port]/nictool [--dry-run]';

export interface ImportNicToolArgs {
  from: string;
  dryRun: boolean;
}

/** Parses the import-nictool flags; throws the usage line on error. */
export function parseImportNicToolArgs(args: string[]): ImportNicToolArgs {
  let values: { from?: string; 'dry-run'?: boolean };
  try {
    ({ values } = parseArgs({ args, strict: true, options: { from: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } } }));
  } catch (err) {
    throw new Error(`${usage}\n  ${(err as Error).message}`);
  }
  if (!values.from || !/^mysql:\/\/[^/]+\/[^/?]+/.test(values.from)) {
    throw new Error(`${usage}\n  --from: a mysql:// URL naming the NicTool database is required`);
  }
  return { from: values.from, dryRun: values['dry-run'] ?? false };
}

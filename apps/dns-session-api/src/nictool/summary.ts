// What an import-nictool run did: counts per kind and every object not imported (or imported differently) with why.
export type Kind = 'group' | 'user' | 'nameserver' | 'zone';

export interface ImportSummary {
  dryRun: boolean;
  imported: Record<Kind | 'record', number>;
  unchanged: Record<Kind, number>;
  /** Objects not imported, or imported under another name, and why. */
  notes: Array<{ kind: Kind | 'record'; nictoolId: number; name: string; reason: string }>;
}

/** The summary as lines for the terminal. */
export function formatSummary(summary: ImportSummary): string {
  const kinds: Array<Kind | 'record'> = ['group', 'user', 'nameserver', 'zone', 'record'];
  const lines = [summary.dryRun ? 'dry run: nothing was written; a real run would do this' : 'NicTool import finished'];
  for (const kind of kinds) {
    const unchanged = kind === 'record' ? '' : `, ${summary.unchanged[kind]} already imported`;
    const notes = summary.notes.filter((n) => n.kind === kind).length;
    lines.push(`  ${`${kind}s`.padEnd(12)} ${summary.imported[kind]} imported${unchanged}${notes ? `, ${notes} noted below` : ''}`);
  }
  if (summary.notes.length > 0) {
    lines.push('notes (not imported, or imported differently):');
    for (const n of summary.notes) lines.push(`  ${n.kind} ${n.nictoolId} (${n.name}): ${n.reason}`);
  }
  return lines.join('\n');
}

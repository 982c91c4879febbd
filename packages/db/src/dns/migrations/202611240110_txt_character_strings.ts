// TXT data becomes a list of character-strings kept exactly (issue 12): rdata.data now holds the presentation
// form ("a" "b", RFC 1035 escapes) instead of plain text. Existing rows held plain text that export split into
// 255-octet strings; this writes exactly those strings, so every zone exports as before. The conversion is
// written out here rather than imported: a migration must keep doing what it did when it shipped.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

function quote(bytes: Buffer): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b > 0x7e) out += `\\${b.toString().padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

export function plainTextToCharStrings(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return '""';
  const pieces: string[] = [];
  for (let i = 0; i < bytes.length; i += 255) pieces.push(quote(bytes.subarray(i, i + 255)));
  return pieces.join(' ');
}

export async function up(db: Kysely<unknown>): Promise<void> {
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; data: string }>`
      select id, rdata->>'data' as data from dns.zone_records where type = 'TXT' and id > ${after} order by id limit 5000`.execute(db);
    if (rows.length === 0) return;
    await sql`
      update dns.zone_records r set rdata = jsonb_set(r.rdata, '{data}', to_jsonb(u.data))
      from unnest(${rows.map((r) => r.id)}::int[], ${rows.map((r) => plainTextToCharStrings(r.data ?? ''))}::text[]) as u(id, data)
      where r.id = u.id`.execute(db);
    after = rows[rows.length - 1]!.id;
  }
}

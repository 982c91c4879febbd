// Import a zone from a BIND zone file: paste or upload it, preview what it creates (POST /zone/import?dry_run=true,
// which checks everything and writes nothing), see each bad line marked where it is, fix it, then apply.
import { useMemo, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ErrorSummary, fieldError, TextAreaField, TextField } from '@keyzone/ui/browser';
import { api, type Zone } from './api';
import { navigate } from './router';

interface Preview {
  zone: Omit<Zone, 'id'>;
  records: number;
  by_type: Record<string, number>;
  preview: Array<{ line: number; owner: string; type: string; ttl?: number } & Record<string, unknown>>;
}

const BASE = new Set(['line', 'owner', 'type', 'ttl']);

export function ImportZone() {
  const [zone, setZone] = useState('');
  const [text, setText] = useState('');
  const [preview, setPreview] = useState<Preview | undefined>();
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [busy, setBusy] = useState(false);

  const badLines = useMemo(() => {
    const map = new Map<number, string[]>();
    if (error instanceof ApiError) for (const p of error.problems) if (p.line !== undefined) map.set(p.line, [...(map.get(p.line) ?? []), p.message]);
    return map;
  }, [error]);

  async function upload(file: File | undefined) {
    if (!file) return;
    const content = await file.text();
    setText(content);
    setPreview(undefined);
    const origin = /^\$ORIGIN\s+(\S+)/m.exec(content);
    if (origin?.[1] && !zone) setZone(origin[1]);
    else if (!zone) setZone(file.name.replace(/\.(zone|db|txt)$/i, ''));
  }

  async function send(dryRun: boolean) {
    setBusy(true);
    setError(undefined);
    try {
      const body = { zone: zone.trim(), zonefile: text };
      if (dryRun) {
        setPreview(await api<Preview>('zone/import?dry_run=true', { body }));
      } else {
        const result = await api<{ zone: Zone }>('zone/import', { body });
        navigate(`/zones/${result.zone.id}`);
      }
    } catch (err) {
      setPreview(undefined);
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  const submit = (event: FormEvent) => { event.preventDefault(); void send(true); };
  const lines = text.split('\n');
  return (
    <div className="kz-stack">
      <h1>Import a zone file</h1>
      <form className="kz-stack" onSubmit={submit} noValidate>
        <ErrorSummary error={error} title="The zone file was not accepted" />
        <TextField label="Zone name" value={zone} onChange={(e) => { setZone(e.target.value); setPreview(undefined); }} hint="e.g. example.com" error={fieldError(error, 'zone')} />
        <div className="kz-field">
          <label htmlFor="dns-upload">Upload a zone file</label>
          <input id="dns-upload" type="file" accept=".zone,.db,.txt,text/*" onChange={(e) => void upload(e.target.files?.[0])} />
        </div>
        <TextAreaField label="Zone file" rows={14} spellCheck={false} value={text} onChange={(e) => { setText(e.target.value); setPreview(undefined); }}
          hint="$ORIGIN, $TTL, the SOA and the records, as BIND writes them" error={badLines.size > 0 ? `${badLines.size} line(s) need fixing, marked below` : undefined} />
        <div className="kz-row">
          <Button type="submit" busy={busy} disabled={!zone.trim() || !text.trim()}>Preview</Button>
        </div>
      </form>
      {badLines.size > 0 && (
        <Card title="Lines to fix">
          <ol className="dns-lines" aria-label="The zone file, bad lines marked">
            {lines.map((line, i) => {
              const problems = badLines.get(i + 1);
              return (
                <li key={i} className={problems ? 'dns-bad' : undefined}>
                  <span className="dns-lineno">{i + 1}</span>
                  <span>{line || ' '}{problems && <><br /><strong>{problems.join('; ')}</strong></>}</span>
                </li>
              );
            })}
          </ol>
        </Card>
      )}
      {preview && (
        <Card title={`Preview: ${preview.zone.zone}`}>
          <p>Importing creates the zone {preview.zone.zone} (serial {preview.zone.serial}, default TTL {preview.zone.ttl}) with {preview.records} record(s): {Object.entries(preview.by_type).map(([t, n]) => `${n} ${t}`).join(', ')}.</p>
          <div className="kz-table-wrap">
            <table>
              <caption>Records to create{preview.preview.length < preview.records ? ` (the first ${preview.preview.length})` : ''}</caption>
              <thead><tr><th scope="col">Line</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">TTL</th><th scope="col">Data</th></tr></thead>
              <tbody>
                {preview.preview.map((r) => (
                  <tr key={r.line}>
                    <td>{r.line}</td><td>{r.owner}</td><td>{r.type}</td><td>{r.ttl}</td>
                    <td className="kz-mono">{Object.entries(r).filter(([k]) => !BASE.has(k)).map(([, v]) => String(v)).join(' ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="kz-row">
            <Button busy={busy} onClick={() => void send(false)}>Import {preview.zone.zone}</Button>
          </div>
        </Card>
      )}
    </div>
  );
}

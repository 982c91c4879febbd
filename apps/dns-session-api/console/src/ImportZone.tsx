// Import a zone from a BIND zone file: paste or upload it, preview what it creates (POST /zone/import?dry_run=true,
// which checks everything and writes nothing), see each bad line marked where it is, fix it, then apply.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ErrorSummary, fieldError, SelectField, TextAreaField, TextField } from '@keyzone/ui/browser';
import { api, groupAccess, type Zone } from './api';
import { navigate } from './router';

interface Preview {
  zone: Omit<Zone, 'id'>;
  records: number;
  by_type: Record<string, number>;
  preview: Array<{ line: number; owner: string; type: string; ttl?: number } & Record<string, unknown>>;
}

const BASE = new Set(['line', 'owner', 'type', 'ttl']);

export function ImportZone(props: { gid: number; userId: number }) {
  // POST /zone/import-axfr is for administrators only (it opens a connection to the address given): others are not offered it.
  const [admin, setAdmin] = useState(false);
  useEffect(() => {
    const controller = new AbortController();
    groupAccess(props.gid).then((a) => !controller.signal.aborted && setAdmin(a.is_admin), () => undefined);
    return () => controller.abort();
  }, [props.gid]);

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
      <h1>Import a zone</h1>
      {admin && <TransferZone userId={props.userId} />}
      <h2>Import a zone file</h2>
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

interface TsigKeyItem { id: number; name: string; algorithm: string; revoked_at: string | null }

/** Which field a 400 of POST /zone/import-axfr is about: its message starts with the field ("server: …"). */
function axfrField(error: ApiError | Error | undefined, field: string): string | undefined {
  const own = fieldError(error, field);
  if (own || !(error instanceof ApiError) || error.status !== 400) return own;
  const named = /^([a-z_]+)(?:\.[a-z_]+)?(?:, [a-z_]+)*: /.exec(error.message);
  if (named) return named[0].split(/[:,]/).map((f) => f.trim().replace(/\..*/, '')).includes(field) ? error.message : undefined;
  // A transfer that failed is about the nameserver asked.
  return field === 'server' && /^The transfer of /.test(error.message) ? error.message : undefined;
}

/** POST /zone/import-axfr: a zone pulled from a running nameserver, optionally kept as its secondary. */
function TransferZone(props: { userId: number }) {
  const [form, setForm] = useState({ server: '', port: '53', zone: '', tsig_key_id: '', keep_secondary: false });
  const [keys, setKeys] = useState<TsigKeyItem[]>([]);
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    api<{ tsig_keys: TsigKeyItem[] }>(`user/${props.userId}/tsig-keys`, { signal: controller.signal })
      .then((r) => setKeys(r.tsig_keys.filter((k) => k.revoked_at === null)), () => undefined);
    return () => controller.abort();
  }, [props.userId]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const port = Number(form.port);
      const body: Record<string, unknown> = { zone: form.zone.trim(), server: form.server.trim(), port: /^\d+$/.test(form.port.trim()) ? port : form.port };
      if (form.tsig_key_id) body.tsig_key_id = Number(form.tsig_key_id);
      if (form.keep_secondary) body.keep_secondary = true;
      const result = await api<{ zone: Zone }>('zone/import-axfr', { body });
      navigate(`/zones/${result.zone.id}`);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  const set = (name: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [name]: e.target.value }));
  return (
    <Card title="Transfer from a nameserver (AXFR)">
      <form className="kz-stack" onSubmit={(e) => void submit(e)} noValidate>
        <ErrorSummary error={error} title="The transfer was not made" />
        <TextField label="Nameserver address" value={form.server} onChange={set('server')} hint="its IP address, e.g. 192.0.2.53" error={axfrField(error, 'server')} />
        <TextField label="Port" inputMode="numeric" value={form.port} onChange={set('port')} error={axfrField(error, 'port')} />
        <TextField label="Zone to transfer" value={form.zone} onChange={set('zone')} hint="e.g. example.com" error={axfrField(error, 'zone')} />
        <SelectField label="TSIG key" value={form.tsig_key_id} onChange={set('tsig_key_id')} hint="one of your keys (Profile), when the nameserver signs transfers" error={axfrField(error, 'tsig_key_id')}>
          <option value="">None</option>
          {keys.map((k) => <option key={k.id} value={String(k.id)}>{k.name} ({k.algorithm})</option>)}
        </SelectField>
        <label>
          <input type="checkbox" checked={form.keep_secondary} onChange={(e) => setForm((f) => ({ ...f, keep_secondary: e.target.checked }))} /> Keep as a secondary
          <span className="kz-hint"> — refreshed from the nameserver at each SOA refresh, its records read-only here</span>
        </label>
        {axfrField(error, 'keep_secondary') && <p className="kz-field-error">{axfrField(error, 'keep_secondary')}</p>}
        <div className="kz-row">
          <Button type="submit" busy={busy} disabled={!form.server.trim() || !form.zone.trim()}>Transfer the zone</Button>
        </div>
      </form>
    </Card>
  );
}

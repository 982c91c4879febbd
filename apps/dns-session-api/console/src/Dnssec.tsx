// A zone's DNSSEC: on or off (PUT /zone/<id> {dnssec}), its state on each nameserver, and the DS records to give
// the registrar, each with a copy button.
import { useEffect, useState } from 'react';
import { Button, ConfirmDialog, CopyButton, ErrorSummary, StatusMessage } from '@keyzone/ui/browser';
import { api, type Zone } from './api';

interface DnssecState {
  enabled: boolean;
  nsec3: boolean;
  state: string;
  ds: Array<{ key_tag: number; algorithm: number; digest_type: number; digest: string; record: string }>;
  nameservers: Array<{ id: number; name: string; type: string; key_tags: number[]; error: string | null }>;
}

export function Dnssec(props: { zone: Zone; onChanged(zone: Zone): void }) {
  const [state, setState] = useState<DnssecState | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const [confirmOff, setConfirmOff] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api<{ dnssec: DnssecState }>(`zone/${props.zone.id}/dnssec`).then((r) => setState(r.dnssec), (err: Error) => setError(err));
  }, [props.zone.id, reload]);

  async function turn(on: boolean) {
    setConfirmOff(false);
    try {
      const { zone } = await api<{ zone: Zone }>(`zone/${props.zone.id}`, { method: 'PUT', body: { dnssec: on } });
      setStatus(on ? 'Signing was turned on; the nameservers sign the zone as they publish it.' : 'Signing was turned off.');
      props.onChanged(zone);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err as Error);
    }
  }

  return (
    <div className="kz-stack">
      <StatusMessage>{status}</StatusMessage>
      <ErrorSummary error={error} />
      {state && (
        <>
          <p>DNSSEC is <strong>{state.enabled ? 'on' : 'off'}</strong> (state: {state.state}{state.enabled ? `, ${state.nsec3 ? 'NSEC3' : 'NSEC'}` : ''}).</p>
          {state.enabled
            ? <Button variant="danger" onClick={() => setConfirmOff(true)}>Turn DNSSEC off</Button>
            : <Button onClick={() => void turn(true)}>Turn DNSSEC on</Button>}
          <h2>DS records for the registrar</h2>
          {state.ds.length === 0 && <p>None yet{state.enabled ? ': they appear once a nameserver has signed the zone.' : '.'}</p>}
          <ul className="kz-stack">
            {state.ds.map((ds) => (
              <li key={`${ds.key_tag}-${ds.digest_type}`} className="kz-stack">
                <code>{ds.record}</code>
                <CopyButton value={ds.record} label={`Copy DS ${ds.key_tag} (digest type ${ds.digest_type})`} />
              </li>
            ))}
          </ul>
          <h2>On each nameserver</h2>
          <ul>
            {state.nameservers.map((ns) => (
              <li key={ns.id}>{ns.name} ({ns.type}): {ns.error ?? (ns.key_tags.length ? `keys ${ns.key_tags.join(', ')}` : 'no keys')}</li>
            ))}
          </ul>
        </>
      )}
      <ConfirmDialog open={confirmOff} title="Turn DNSSEC off?" confirmLabel="Turn off" danger onConfirm={() => void turn(false)} onCancel={() => setConfirmOff(false)}>
        <p>Remove the DS records at the registrar first and wait for their TTL: while a DS remains, validating resolvers fail the zone.</p>
      </ConfirmDialog>
    </div>
  );
}

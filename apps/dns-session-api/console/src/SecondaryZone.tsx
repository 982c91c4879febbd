// A zone kept as a secondary of an outside primary (issue 44): where it comes from, how its refresh goes, and the way
// back to a primary zone of Keyzone's. Its records are the primary's, so the zone view hides every editing control
// while this panel is shown: the API would refuse each write (409 secondary_zone) anyway.
import { useEffect, useRef, useState } from 'react';
import { ApiError, Button, Card, ConfirmDialog, ErrorSummary, StatusMessage } from '@keyzone/ui/browser';
import { api, type Zone } from './api';

/** GET /zone/<id>/secondary. */
export interface Secondary {
  zone_id: number;
  primary: { address: string; port: number; tsig_key_id: number | null };
  state: 'pending' | 'current' | 'retrying' | 'expired';
  primary_serial: number | null;
  refresh: number | null;
  retry: number | null;
  expire: number | null;
  next_check_at: string;
  last_check_at: string | null;
  last_success_at: string | null;
  last_transfer_at: string | null;
  last_error: string | null;
  expired_at: string | null;
}

const STATE_TEXT: Record<Secondary['state'], string> = {
  pending: 'not transferred yet',
  current: 'the last check reached the primary',
  retrying: 'the last check failed; it is tried again after the SOA retry',
  expired: 'the primary has not answered for the SOA expire: the zone is not served until it does',
};

/** The zone's secondary state, or null for a primary zone of Keyzone's (the API answers 404 then). */
export async function loadSecondary(zoneId: number, signal?: AbortSignal): Promise<Secondary | null> {
  try {
    return (await api<{ secondary: Secondary }>(`zone/${zoneId}/secondary`, { signal })).secondary;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

export function SecondaryPanel(props: { zone: Zone; secondary: Secondary; onConverted(): void; onReload(): void }) {
  const { secondary: s } = props;
  // The refresher changes the state behind the screen: a reload that finds another state or serial says so in the
  // live region, since a screen reader user would not notice the panel's text changing.
  const seen = useRef(`${s.state} ${String(s.primary_serial)}`);
  const [announced, setAnnounced] = useState('');
  useEffect(() => {
    const now = `${s.state} ${String(s.primary_serial)}`;
    if (now === seen.current) return;
    seen.current = now;
    setAnnounced(`The secondary is now ${s.state}, the primary's serial ${s.primary_serial ?? 'none yet'}.`);
  }, [s.state, s.primary_serial]);
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const primary = s.primary.port === 53 ? s.primary.address : `${s.primary.address} port ${s.primary.port}`;

  async function convert() {
    setBusy(true);
    setError(undefined);
    try {
      await api(`zone/${props.zone.id}/secondary`, { method: 'DELETE' });
      setConfirm(false);
      props.onConverted();
    } catch (err) {
      setError(err as Error);
      setConfirm(false);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title={`Secondary of ${primary} — ${s.state}`}>
      <div className="kz-stack" data-testid="secondary-panel">
        <ErrorSummary error={error} />
        <StatusMessage>{announced}</StatusMessage>
        <p>{STATE_TEXT[s.state]}.</p>
        <dl className="dns-status">
          <dt>Primary's serial</dt><dd>{s.primary_serial ?? 'none yet'}</dd>
          <dt>Last check</dt><dd>{when(s.last_check_at)}</dd>
          <dt>Next check</dt><dd>{when(s.next_check_at)}</dd>
          <dt>Last transfer</dt><dd>{when(s.last_transfer_at)}</dd>
          <dt>Last error</dt><dd>{s.last_error ?? 'none'}</dd>
          {s.primary.tsig_key_id !== null && <><dt>TSIG key</dt><dd>stored key #{s.primary.tsig_key_id}</dd></>}
        </dl>
        <p>
          The records and SOA settings are the primary's: each check transfers them again when its serial is newer, so
          they cannot be added, edited, deleted or imported here. Change them on the primary, or convert the zone to a
          primary zone of Keyzone's to edit it here.
        </p>
        <div className="kz-row">
          <Button variant="secondary" onClick={props.onReload}>Reload the state</Button>
          <Button variant="secondary" onClick={() => setConfirm(true)}>Convert to a primary zone</Button>
        </div>
      </div>
      <ConfirmDialog open={confirm} title={`Convert ${props.zone.zone} to a primary zone?`} confirmLabel="Convert" busy={busy}
        onConfirm={() => void convert()} onCancel={() => setConfirm(false)}>
        <p>The records stay as last transferred and become editable here; {primary} is no longer asked for changes.</p>
      </ConfirmDialog>
    </Card>
  );
}

// The running settings, read-only, as GET /admin/config returns them: every secret already masked by the server.
import { useEffect, useState } from 'react';
import { Card, ErrorSummary } from '@keyzone/ui/browser';
import type { Api } from './session';

type Tree = Record<string, unknown>;

function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

function isSection(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function Rows({ tree }: { tree: Tree }) {
  return (
    <dl className="ac-dl">
      {Object.entries(tree).map(([key, value]) => [
        <dt key={`${key}-t`}>{key}</dt>,
        <dd key={`${key}-d`} className="kz-mono">{isSection(value) ? <Rows tree={value} /> : show(value)}</dd>,
      ])}
    </dl>
  );
}

export function SettingsScreen(props: { api: Api }) {
  const [config, setConfig] = useState<Tree | undefined>();
  const [error, setError] = useState<Error | undefined>();
  useEffect(() => { props.api<Tree>('/admin/config').then(setConfig, setError); }, [props.api]);
  if (error) return <div className="kz-stack"><h1>Settings</h1><ErrorSummary error={error} /></div>;
  if (!config) return <p role="status">Loading the settings…</p>;
  const top = Object.fromEntries(Object.entries(config).filter(([, v]) => !isSection(v)));
  return (
    <div className="kz-stack">
      <h1>Settings</h1>
      <p>The settings the server runs with (read-only: they come from its environment). Secrets are masked.</p>
      <Card title="general"><Rows tree={top} /></Card>
      {Object.entries(config).filter(([, v]) => isSection(v)).map(([name, section]) => (
        <Card key={name} title={name}><Rows tree={section as Tree} /></Card>
      ))}
    </div>
  );
}

// A table of rows fetched a page at a time by an opaque cursor (keyset paging): "Next" follows the service's
// next_cursor, "Previous" goes back through the cursors already seen, so no page ever costs an OFFSET.
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import type { ApiError } from './api';
import { Button, ErrorSummary } from './components';

export interface KeysetPage<Row> {
  rows: Row[];
  nextCursor?: string;
}

export interface Column<Row> {
  header: string;
  cell(row: Row): ReactNode;
}

export function KeysetTable<Row>(props: {
  caption: string;
  columns: ReadonlyArray<Column<Row>>;
  rowKey(row: Row): string;
  /** Loads the page at `cursor` (undefined: the first); a new function (new filters) starts again at the first page. */
  load(cursor: string | undefined, signal: AbortSignal): Promise<KeysetPage<Row>>;
  empty?: string;
}) {
  const { load } = props;
  const [trail, setTrail] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<KeysetPage<Row> | undefined>();
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [busy, setBusy] = useState(false);
  const cursor = trail[trail.length - 1];

  useEffect(() => setTrail([undefined]), [load]);
  const fetchPage = useCallback((signal: AbortSignal) => {
    setBusy(true);
    load(cursor, signal).then(
      (result) => { setPage(result); setError(undefined); setBusy(false); },
      (cause: Error) => { if (cause.name !== 'AbortError') { setError(cause); setBusy(false); } },
    );
  }, [load, cursor]);
  useEffect(() => {
    const controller = new AbortController();
    fetchPage(controller.signal);
    return () => controller.abort();
  }, [fetchPage]);

  return (
    <div className="kz-stack">
      <ErrorSummary error={error} />
      <div className="kz-table-wrap">
        <table className="kz-table" aria-busy={busy || undefined}>
          <caption>{props.caption}{trail.length > 1 ? ` (page ${trail.length})` : ''}</caption>
          <thead>
            <tr>{props.columns.map((c) => <th key={c.header} scope="col">{c.header}</th>)}</tr>
          </thead>
          <tbody>
            {page?.rows.map((row) => (
              <tr key={props.rowKey(row)}>{props.columns.map((c) => <td key={c.header}>{c.cell(row)}</td>)}</tr>
            ))}
            {page && page.rows.length === 0 && (
              <tr><td colSpan={props.columns.length}>{props.empty ?? 'Nothing found.'}</td></tr>
            )}
          </tbody>
        </table>
      </div>
      <nav className="kz-row" aria-label={`${props.caption} pages`}>
        <Button variant="secondary" disabled={trail.length <= 1 || busy} onClick={() => setTrail((t) => t.slice(0, -1))}>Previous</Button>
        <Button variant="secondary" disabled={!page?.nextCursor || busy} onClick={() => page?.nextCursor && setTrail((t) => [...t, page.nextCursor])}>Next</Button>
      </nav>
    </div>
  );
}

// A grid of checkboxes, rows × columns, as a table (e.g. permission objects: the objects × create/write/delete).
// Each checkbox is named by its column and row ("delete zones"), so a screen reader user hears the cell's meaning
// without the header lookup; a cell a row does not have is shown as not applicable rather than as a checkbox.
// A cell may carry a note (e.g. "inherited"), read with its checkbox.
import { useId } from 'react';

export interface GridAxis {
  key: string;
  label: string;
}

export interface GridCell {
  checked: boolean;
  /** the cell cannot change (e.g. the signed-in user may not grant it) */
  disabled?: boolean;
  note?: string;
}

export function CheckboxGrid(props: {
  caption: string;
  rows: readonly GridAxis[];
  columns: readonly GridAxis[];
  /** the cell at a row and column, or undefined where that row has no such column */
  cell(row: string, column: string): GridCell | undefined;
  onChange?(row: string, column: string, checked: boolean): void;
  /** every checkbox is shown but cannot change */
  readOnly?: boolean;
}) {
  const base = useId();
  return (
    <div className="kz-table-wrap">
      <table className="kz-grid">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <td />
            {props.columns.map((c) => <th key={c.key} scope="col">{c.label}</th>)}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.label}</th>
              {props.columns.map((c) => {
                const cell = props.cell(r.key, c.key);
                if (!cell) return <td key={c.key}><span aria-hidden="true">—</span><span className="kz-visually-hidden">not applicable</span></td>;
                const noteId = cell.note ? `${base}-${r.key}-${c.key}-note` : undefined;
                return (
                  <td key={c.key}>
                    <input type="checkbox" aria-label={`${c.label} ${r.label}`} aria-describedby={noteId} checked={cell.checked}
                      disabled={props.readOnly || cell.disabled} onChange={(e) => props.onChange?.(r.key, c.key, e.target.checked)} />
                    {cell.note && <span id={noteId} className="kz-hint"> {cell.note}</span>}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

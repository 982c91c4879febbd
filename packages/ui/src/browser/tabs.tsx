// Tabs as the WAI-ARIA pattern has them: one tab stop, arrow keys move between tabs, each panel labelled by its
// tab. The selected tab is the caller's state (a screen may keep it in its route).
import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

export interface TabItem {
  id: string;
  label: string;
}

export function Tabs(props: { label: string; tabs: readonly TabItem[]; selected: string; onSelect(id: string): void; children: ReactNode }) {
  const base = useId();
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const onKeyDown = (event: KeyboardEvent) => {
    const index = props.tabs.findIndex((t) => t.id === props.selected);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    const target = event.key === 'Home' ? props.tabs[0] : event.key === 'End' ? props.tabs[props.tabs.length - 1]
      : step ? props.tabs[(index + step + props.tabs.length) % props.tabs.length] : undefined;
    if (!target) return;
    event.preventDefault();
    props.onSelect(target.id);
    refs.current[target.id]?.focus();
  };
  return (
    <div className="kz-stack">
      <div role="tablist" aria-label={props.label} className="kz-tabs" onKeyDown={onKeyDown}>
        {props.tabs.map((tab) => (
          <button key={tab.id} ref={(el) => { refs.current[tab.id] = el; }} type="button" role="tab" id={`${base}-${tab.id}`}
            aria-selected={tab.id === props.selected} aria-controls={`${base}-panel`} tabIndex={tab.id === props.selected ? 0 : -1}
            className="kz-tab" onClick={() => props.onSelect(tab.id)}>
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-${props.selected}`} tabIndex={0}>
        {props.children}
      </div>
    </div>
  );
}

// A destructive action asks first, in a native modal <dialog>: focus moves into it, Escape cancels, and the page
// behind is inert for keyboard and screen reader users without any focus-trap code of our own.
import { useEffect, useRef, type ReactNode } from 'react';
import { Button } from './components';

export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} className="kz-dialog kz-stack" aria-labelledby="kz-dialog-title" onCancel={(e) => { e.preventDefault(); props.onCancel(); }}>
      <h2 id="kz-dialog-title">{props.title}</h2>
      {props.children}
      <div className="kz-row">
        <Button variant={props.danger ? 'danger' : 'primary'} busy={props.busy} onClick={props.onConfirm}>{props.confirmLabel}</Button>
        <Button variant="secondary" onClick={props.onCancel}>Cancel</Button>
      </div>
    </dialog>
  );
}

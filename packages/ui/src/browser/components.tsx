// The building blocks both services' screens are made of. Each one carries its own accessibility wiring (labels,
// descriptions, live regions), so a screen built from them is usable with a keyboard and a screen reader by
// construction rather than by review.
import { useId, useState, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import type { ApiError, FieldProblem } from './api';

export interface NavLink {
  href: string;
  label: string;
  current?: boolean;
}

/** The page frame: skip link, header with the product name and navigation, and the one <main>. */
export function Shell(props: { product: string; nav?: readonly NavLink[]; actions?: ReactNode; children: ReactNode; narrow?: boolean }) {
  return (
    <div className="kz-shell">
      <a className="kz-skip" href="#kz-main">Skip to content</a>
      <header className="kz-header">
        <p className="kz-brand">{props.product}</p>
        {props.nav && props.nav.length > 0 && (
          <nav aria-label="Main" className="kz-nav">
            {props.nav.map((link) => (
              <a key={link.href} href={link.href} aria-current={link.current ? 'page' : undefined}>{link.label}</a>
            ))}
          </nav>
        )}
        {props.actions && <div className="kz-row">{props.actions}</div>}
      </header>
      <main id="kz-main" className={props.narrow ? 'kz-main kz-narrow' : 'kz-main'} tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}

export function Card(props: { title?: string; children: ReactNode; headingLevel?: 1 | 2 | 3 }) {
  const Heading = `h${props.headingLevel ?? 2}` as 'h1' | 'h2' | 'h3';
  return (
    <section className="kz-card kz-stack">
      {props.title && <Heading>{props.title}</Heading>}
      {props.children}
    </section>
  );
}

type Variant = 'primary' | 'secondary' | 'danger';

export function Button({ variant = 'primary', busy, children, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; busy?: boolean }) {
  const className = ['kz-button', variant === 'secondary' ? 'kz-secondary' : '', variant === 'danger' ? 'kz-danger' : ''].filter(Boolean).join(' ');
  return (
    <button type="button" className={className} disabled={busy || rest.disabled} aria-busy={busy || undefined} {...rest}>
      {children}
    </button>
  );
}

interface FieldFrameProps {
  label: string;
  hint?: string;
  error?: string;
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
}

/** A label, the control, an optional hint and the error that concerns this field, tied together for assistive tech. */
export function FieldFrame({ label, hint, error, children }: FieldFrameProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="kz-field">
      <label htmlFor={id}>{label}</label>
      {children({ id, describedBy, invalid: Boolean(error) })}
      {hint && <span id={hintId} className="kz-hint">{hint}</span>}
      {error && <span id={errorId} className="kz-field-error">{error}</span>}
    </div>
  );
}

export function TextField({ label, hint, error, ...input }: InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string; error?: string }) {
  return (
    <FieldFrame label={label} hint={hint} error={error}>
      {({ id, describedBy, invalid }) => <input id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...input} />}
    </FieldFrame>
  );
}

export function TextAreaField({ label, hint, error, ...area }: TextareaHTMLAttributes<HTMLTextAreaElement> & { label: string; hint?: string; error?: string }) {
  return (
    <FieldFrame label={label} hint={hint} error={error}>
      {({ id, describedBy, invalid }) => <textarea id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...area} />}
    </FieldFrame>
  );
}

export function SelectField({ label, hint, error, children, ...select }: SelectHTMLAttributes<HTMLSelectElement> & { label: string; hint?: string; error?: string }) {
  return (
    <FieldFrame label={label} hint={hint} error={error}>
      {({ id, describedBy, invalid }) => (
        <select id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...select}>{children}</select>
      )}
    </FieldFrame>
  );
}

/** An error (announced at once) or a success message (announced politely). */
export function Alert(props: { kind: 'error' | 'success'; children: ReactNode }) {
  return (
    <div className={`kz-alert kz-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

/** An API error: its message and, when the service named fields or lines, each of them. */
export function ErrorSummary(props: { error: ApiError | Error | undefined; title?: string }) {
  if (!props.error) return null;
  const problems: readonly FieldProblem[] = 'problems' in props.error ? props.error.problems : [];
  return (
    <Alert kind="error">
      <p>{props.title ? `${props.title}: ` : ''}{props.error.message}</p>
      {problems.length > 0 && (
        <ul>
          {problems.map((p, i) => (
            <li key={i}>{p.line !== undefined ? `Line ${p.line}: ` : ''}{p.field ? `${p.field}: ` : ''}{p.message}</li>
          ))}
        </ul>
      )}
    </Alert>
  );
}

/** The problems an error reports for one field, joined for display next to it. */
export function fieldError(error: ApiError | Error | undefined, field: string): string | undefined {
  if (!error || !('problems' in error)) return undefined;
  const messages = error.problems.filter((p) => p.field === field).map((p) => p.message);
  return messages.length ? messages.join('; ') : undefined;
}

/** Copies a value (a DS record, a token shown once) and says so to screen readers. */
export function CopyButton(props: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="kz-row">
      <Button
        variant="secondary"
        onClick={() => {
          void navigator.clipboard?.writeText(props.value).then(() => setCopied(true), () => setCopied(false));
        }}
      >
        {props.label ?? 'Copy'}
      </Button>
      <span role="status" className="kz-hint">{copied ? 'Copied' : ''}</span>
    </span>
  );
}

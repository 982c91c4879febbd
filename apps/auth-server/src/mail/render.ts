// Renders GoTrue-style templates: `{{ .Name }}` variables only (no pipelines or control flow),
// HTML-escaped in bodies. Unknown or absent variables render as the empty string, as Go's
// templates do for a missing map key.
import type { TemplateData } from './kinds';

const VARIABLE = /\{\{-?\s*\.([A-Za-z][A-Za-z0-9]*)\s*-?\}\}/g;

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&#34;')
    .replace(/'/g, '&#39;');
}

function lookup(data: TemplateData, name: string): string {
  const value = (data as unknown as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** An HTML body: every value escaped. */
export function renderHtml(template: string, data: TemplateData): string {
  return template.replace(VARIABLE, (_m, name: string) => escapeHtml(lookup(data, name)));
}

/** A subject line: plain text, line breaks removed so no header can be injected. */
export function renderSubject(template: string, data: TemplateData): string {
  return template.replace(VARIABLE, (_m, name: string) => lookup(data, name)).replace(/[\r\n]+/g, ' ').trim();
}

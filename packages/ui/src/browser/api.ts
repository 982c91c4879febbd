// The screens talk to their service over its public JSON API, like any other client. Errors of both services'
// shapes (GoTrue's {code, error_code, msg}, OAuth's {error, error_description}, the DNS API's
// {error: {code, message, errors?}}) become one ApiError the components know how to show.

/** One rule a field broke, as the DNS API reports them (field, rule, message). */
export interface FieldProblem {
  field: string;
  rule?: string;
  message: string;
  line?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly problems: readonly FieldProblem[] = [],
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function problemsOf(value: unknown): FieldProblem[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((p) => {
    if (!p || typeof p !== 'object') return [];
    const item = p as Json;
    const message = str(item.message);
    if (!message) return [];
    return [{ field: str(item.field) ?? '', rule: str(item.rule), message, line: typeof item.line === 'number' ? item.line : undefined }];
  });
}

/** The ApiError an error answer's body stands for. */
export function errorFromBody(status: number, body: unknown): ApiError {
  const fallback = `The request failed (HTTP ${status})`;
  if (!body || typeof body !== 'object') return new ApiError(status, fallback);
  const b = body as Json;
  if (b.error && typeof b.error === 'object') {
    const inner = b.error as Json;
    return new ApiError(status, str(inner.message) ?? fallback, str(inner.code), problemsOf(inner.errors ?? inner.lines));
  }
  const message = str(b.msg) ?? str(b.message) ?? str(b.error_description) ?? str(b.error) ?? fallback;
  const problems = problemsOf(b.errors);
  return new ApiError(status, message, str(b.error_code) ?? str(b.error), problems.length > 0 ? problems : validationProblems(b.validation, message));
}

/**
 * The DNS API's schema errors (Boom's shape: {statusCode, error, message, validation: {source, keys}}) name the
 * fields in `validation.keys` and say why in the message as `"<key>" <reason>; "<key>" <reason>`: one problem per
 * key, so the reason shows at its field.
 */
function validationProblems(validation: unknown, message: string): FieldProblem[] {
  const keys = validation && typeof validation === 'object' ? (validation as Json).keys : undefined;
  if (!Array.isArray(keys)) return [];
  return keys.filter((k): k is string => typeof k === 'string' && k !== '').map((field) => {
    const at = message.indexOf(`"${field}" `);
    const rest = at < 0 ? '' : message.slice(at + field.length + 3);
    const end = rest.search(/; "[^"]+" /);
    return { field, message: (end < 0 ? rest : rest.slice(0, end)) || 'is not valid' };
  });
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Raw text body (zone files) instead of JSON. */
  text?: { body: string; contentType: string };
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * fetch for the screens: same-origin cookies, JSON in and out, an ApiError for any non-2xx answer. The
 * X-Requested-With header marks the request as the screen's own (it also forces a CORS preflight on any
 * cross-origin attempt).
 */
export async function requestJson<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-requested-with': 'keyzone', ...options.headers };
  let body: string | undefined;
  if (options.text) {
    headers['content-type'] = options.text.contentType;
    body = options.text.body;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, credentials: 'same-origin', signal: options.signal });
  } catch (cause) {
    if ((cause as Error).name === 'AbortError') throw cause;
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.');
  }
  const type = response.headers.get('content-type') ?? '';
  const parsed: unknown = type.includes('json') ? await response.json().catch(() => undefined) : await response.text();
  if (!response.ok) throw errorFromBody(response.status, parsed);
  return parsed as T;
}

// Small fetch wrapper for tests: JSON in, status + headers + parsed JSON out.

/** Response bodies are whatever the server sent; tests assert on their shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;
export interface HttpResult<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  /** Send the 2024-01-01 error shape header (auth-js default). */
  newShape?: boolean;
  rawBody?: string;
}

export async function call<T = Json>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.newShape) headers['x-supabase-api-version'] = '2024-01-01';
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

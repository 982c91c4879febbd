// A tiny HTTP client with a cookie jar, over Node's fetch: real requests, real Set-Cookie handling.

export interface TestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else the text. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
  setCookies: string[];
}

export interface RequestOptions {
  /** A value to send as JSON. */
  json?: unknown;
  /** A raw body (sent as is, with the given headers). */
  raw?: string;
  headers?: Record<string, string>;
  /** Send no cookies this time. */
  noCookies?: boolean;
}

export class CookieClient {
  readonly jar = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, json?: unknown, options?: RequestOptions) {
    return this.request('POST', path, { ...options, json });
  }
  put(path: string, json?: unknown, options?: RequestOptions) {
    return this.request('PUT', path, { ...options, json });
  }
  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }

  /** The Cookie header the jar would send. */
  cookieHeader(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    } else if (options.raw !== undefined) {
      body = options.raw;
    }
    if (!options.noCookies && this.jar.size > 0 && headers.cookie === undefined) headers.cookie = this.cookieHeader();
    const res = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    const setCookies = res.headers.getSetCookie();
    for (const cookie of setCookies) this.store(cookie);
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json') && text !== '') parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text, setCookies };
  }

  private store(setCookie: string): void {
    const [pair = '', ...attributes] = setCookie.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const maxAge = attributes.find((a) => /^max-age=/i.test(a));
    if (value === '' || (maxAge && Number(maxAge.split('=')[1]) <= 0)) this.jar.delete(name);
    else this.jar.set(name, value);
  }
}

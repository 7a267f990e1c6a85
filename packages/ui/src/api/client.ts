/**
 * The UI's only door to Baton: the public HTTP API under /api, same origin. Every failure
 * becomes an ApiError carrying the server's error body (DESIGN §11), so pages can show the
 * message and the fields it names.
 */

export interface ValidationProblem {
  path: string;
  message: string;
  invalidValue?: unknown;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly validationErrors: ValidationProblem[] = [],
  ) {
    super(message);
  }
}

interface ErrorBody {
  message?: unknown;
  validationErrors?: unknown;
}

function problemsOf(raw: unknown): ValidationProblem[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item: unknown) => {
    if (typeof item !== 'object' || item === null) return [];
    const p = item as Record<string, unknown>;
    const text = (v: unknown): string =>
      typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v);
    return [{ path: text(p.path), message: text(p.message), invalidValue: p.invalidValue }];
  });
}

async function request(method: string, url: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json, text/plain' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    const text = await res.text();
    let parsed: ErrorBody | undefined;
    try {
      parsed = JSON.parse(text) as ErrorBody;
    } catch {
      parsed = undefined;
    }
    const message =
      typeof parsed?.message === 'string' ? parsed.message : text || `${method} ${url}: HTTP ${res.status}`;
    throw new ApiError(res.status, message, problemsOf(parsed?.validationErrors));
  }
  return res;
}

/** JSON answer; `undefined` for an empty (204) one. */
export async function getJson<T>(url: string): Promise<T> {
  const res = await request('GET', url);
  const text = await res.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

export async function sendJson<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await request(method, url, body);
  const text = await res.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** For routes that answer plain text (a run id, a task id). */
export async function sendForText(method: string, url: string, body?: unknown): Promise<string> {
  const res = await request(method, url, body);
  return res.text();
}

export function qs(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const enc = encodeURIComponent;

/**
 * The UI's only door to Baton: the public HTTP API under /api, same origin. Every failure
 * becomes an ApiError carrying the server's error body (docs/design/errors.md#the-error-body), so
 * pages can show the message and the fields it names.
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

/**
 * The caller's token when authentication is on. It lives in sessionStorage (gone with the tab);
 * an application key's secret is kept only in memory, so an expired token is traded again
 * without asking while the page stays open, and never written anywhere.
 */
const TOKEN_KEY = 'baton.token';
let appKey: { keyId: string; keySecret: string } | undefined;
const listeners = new Set<() => void>();

export function currentToken(): string | undefined {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Stores the token; `notify` tells the app the caller changed (not so for a renewed token). */
function setToken(token: string | undefined, notify = true): void {
  try {
    if (token === undefined) window.sessionStorage.removeItem(TOKEN_KEY);
    else window.sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Storage refused (private mode): the token lives as long as this page does not reload.
  }
  if (notify) for (const listener of listeners) listener();
}

/** One renewal at a time: the requests refused together all wait for it. */
let renewing: Promise<string | undefined> | undefined;

function renew(key: { keyId: string; keySecret: string }): Promise<string | undefined> {
  renewing ??= exchange(key.keyId, key.keySecret)
    .then(
      (token) => {
        setToken(token, false);
        return token;
      },
      () => undefined,
    )
    .finally(() => {
      renewing = undefined;
    });
  return renewing;
}

/** Called when the token changes (signed in, signed out, refused). */
export function onTokenChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

async function exchange(keyId: string, keySecret: string): Promise<string> {
  const res = await fetch('/api/token', {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ keyId, keySecret }),
  });
  if (!res.ok) throw await errorOf(res, 'POST', '/api/token');
  const { token } = (await res.json()) as { token?: unknown };
  if (typeof token !== 'string') throw new ApiError(res.status, 'POST /api/token answered no token');
  return token;
}

/** Signs in with an application key: its token is used from now on. */
export async function signInWithKey(keyId: string, keySecret: string): Promise<void> {
  const token = await exchange(keyId, keySecret);
  appKey = { keyId, keySecret };
  setToken(token);
}

/** Uses a token got elsewhere (the identity provider's). */
export function adoptToken(token: string): void {
  appKey = undefined;
  setToken(token);
}

export function signOut(): void {
  appKey = undefined;
  setToken(undefined);
}

async function errorOf(res: Response, method: string, url: string): Promise<ApiError> {
  const text = await res.text();
  let parsed: ErrorBody | undefined;
  try {
    parsed = JSON.parse(text) as ErrorBody;
  } catch {
    parsed = undefined;
  }
  const message =
    typeof parsed?.message === 'string' ? parsed.message : text || `${method} ${url}: HTTP ${res.status}`;
  return new ApiError(res.status, message, problemsOf(parsed?.validationErrors));
}

async function send(
  method: string,
  url: string,
  body: unknown,
  token: string | undefined,
): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json, text/plain' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function request(method: string, url: string, body?: unknown): Promise<Response> {
  const token = currentToken();
  let res = await send(method, url, body, token);
  if (res.status === 401 && token !== undefined) {
    // Expired or revoked: trade the key again once (unless another request already did); else
    // the token is dropped and the UI asks.
    const now = currentToken();
    const key = appKey;
    const fresh = now !== undefined && now !== token ? now : key ? await renew(key) : undefined;
    if (fresh !== undefined) res = await send(method, url, body, fresh);
    if (res.status === 401 && currentToken() !== undefined) signOut();
  }
  if (!res.ok) throw await errorOf(res, method, url);
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

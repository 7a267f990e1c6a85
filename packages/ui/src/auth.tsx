import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

import { ApiError, getJson, onTokenChange, signInWithKey, signOut } from './api/client';
import { CALLBACK_PATH, finishOidcSignIn, startOidcSignIn } from './oidc';
import { useRouter } from './router';

/**
 * Signing in and what the caller may do. `GET /api/auth/session` (open) says whether
 * authentication is on and, with the token the UI holds, whose it is and which roles it carries;
 * the pages ask `can(group)` before showing an action, with the role named when it is missing.
 */

export type Group = 'metadata' | 'workflow' | 'task' | 'event' | 'admin';

export interface Session {
  authEnabled: boolean;
  issuer?: string;
  uiClient?: { clientId: string; scope: string };
  groupRoles: Record<Group, string>;
  caller?: { subject: string; via: 'oidc' | 'application' | 'anonymous'; roles: string[] };
  /** A trace viewer's URL with {traceId} (BATON_TRACE_URL_TEMPLATE): run pages link to their trace. */
  traceUrlTemplate?: string;
}

interface Access {
  session: Session;
  /** Whether the caller holds the role of a caller group (admin holds every one). */
  can: (group: Group) => boolean;
  /** Why an action of the group is not offered: "needs the role …"; undefined when allowed. */
  why: (group: Group) => string | undefined;
}

const AccessContext = createContext<Access | undefined>(undefined);

export function useAccess(): Access {
  const access = useContext(AccessContext);
  if (!access) throw new Error('useAccess outside <AuthGate>');
  return access;
}

function accessOf(session: Session): Access {
  const roles = new Set(session.caller?.roles ?? []);
  const can = (group: Group): boolean =>
    !session.authEnabled || roles.has(session.groupRoles.admin) || roles.has(session.groupRoles[group]);
  return {
    session,
    can,
    why: (group) => (can(group) ? undefined : `needs the role '${session.groupRoles[group]}'`),
  };
}

/**
 * Shows a missing role instead of an action, so the reader knows why it is not there; `fallback`
 * is text the action would have shown that is worth reading anyway (a HUMAN task's instruction).
 */
export function Needs({
  group,
  children,
  short,
  fallback,
}: {
  group: Group;
  children: ReactNode;
  short?: boolean;
  fallback?: string | undefined;
}) {
  const { why } = useAccess();
  const reason = why(group);
  if (reason === undefined) return <>{children}</>;
  return (
    <>
      {fallback && <p className="instruction">{fallback}</p>}
      <span className="muted small needs-role" data-testid="needs-role">
        {short ? reason : `Read only: changing this ${reason}.`}
      </span>
    </>
  );
}

function SignIn({ session, problem }: { session: Session; problem?: string }) {
  const queryClient = useQueryClient();
  const [keyId, setKeyId] = useState('');
  const [keySecret, setKeySecret] = useState('');
  const [error, setError] = useState<string | undefined>(problem);
  const [busy, setBusy] = useState(false);
  return (
    <div className="signin">
      <form
        className="card signin-card"
        aria-label="Sign in"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          signInWithKey(keyId.trim(), keySecret)
            .then(() => queryClient.invalidateQueries())
            .catch((err: unknown) =>
              setError(
                err instanceof ApiError && err.status === 401
                  ? `${err.message} — check the key id and secret`
                  : err instanceof Error
                    ? err.message
                    : String(err),
              ),
            )
            .finally(() => setBusy(false));
        }}
      >
        <h1>
          <span className="brand-mark" aria-hidden="true" /> Sign in to Baton
        </h1>
        <p className="muted">
          Authentication is on. Sign in with an application access key (an admin creates one under{' '}
          <span className="mono">/api/applications</span>; the first is{' '}
          <span className="mono">BATON_AUTH_BOOTSTRAP_KEY_ID</span>
          ).
        </p>
        <div className="field">
          <label htmlFor="signin-key">Key id</label>
          <input
            id="signin-key"
            autoComplete="username"
            value={keyId}
            onChange={(e) => setKeyId(e.target.value)}
            required
          />
        </div>
        <div className="field">
          <label htmlFor="signin-secret">Key secret</label>
          <input
            id="signin-secret"
            type="password"
            autoComplete="current-password"
            value={keySecret}
            onChange={(e) => setKeySecret(e.target.value)}
            required
          />
        </div>
        {error && (
          <div className="alert alert-error" role="alert">
            {error}
          </div>
        )}
        <button type="submit" className="btn btn-primary" disabled={busy || keyId === '' || keySecret === ''}>
          Sign in
        </button>
        {session.issuer && session.uiClient && (
          <>
            <div className="signin-or muted small">or</div>
            <button
              type="button"
              className="btn"
              onClick={() => {
                const { issuer, uiClient } = session;
                if (!issuer || !uiClient) return;
                setError(undefined);
                startOidcSignIn(issuer, uiClient).catch((err: unknown) =>
                  setError(err instanceof Error ? err.message : String(err)),
                );
              }}
            >
              Sign in with {new URL(session.issuer).host}
            </button>
          </>
        )}
      </form>
    </div>
  );
}

/** Where the identity provider sends the browser back: the code is traded, then on to the page. */
function OidcCallback() {
  const { location, navigate } = useRouter();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    finishOidcSignIn(location.search).then(
      (returnTo) => live && navigate(returnTo, { replace: true }),
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
    // Once per arrival: the code can be traded only once.
  }, []);
  if (!error) return <div className="page muted">Signing in…</div>;
  return (
    <div className="page">
      <div className="alert alert-error" role="alert">
        {error}
      </div>
      <a href="/">Back to sign-in</a>
    </div>
  );
}

/** Renders the app once the caller is known: the sign-in form first when auth is on and no token works. */
export function AuthGate({ children }: { children: ReactNode }) {
  const { location } = useRouter();
  if (location.path === CALLBACK_PATH) return <OidcCallback />;
  return <SessionGate>{children}</SessionGate>;
}

function SessionGate({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const session = useQuery({
    queryKey: ['session'],
    queryFn: () => getJson<Session>('/api/auth/session'),
    staleTime: 60_000,
    retry: false,
  });
  // Signed in, out, or refused: ask again who this is, and drop what the old token could read.
  useEffect(
    () =>
      onTokenChange(() => {
        void queryClient.invalidateQueries();
      }),
    [queryClient],
  );
  if (session.isPending) return <div className="page muted">Loading…</div>;
  // A refused token was already dropped by the client (which asks again without it).
  if (session.error)
    return <div className="page alert alert-error">Baton did not answer: {session.error.message}</div>;
  const data = session.data;
  if (data.authEnabled && !data.caller) return <SignIn session={data} />;
  return <AccessContext.Provider value={accessOf(data)}>{children}</AccessContext.Provider>;
}

/** The signed-in caller and a way out, for the header. */
export function CallerBadge() {
  const { session } = useAccess();
  const caller = session.caller;
  if (!session.authEnabled || !caller) return null;
  return (
    <span className="caller">
      <span className="mono small" title={`roles: ${caller.roles.join(', ') || 'none'}`} data-testid="caller">
        {caller.subject}
      </span>
      <button
        type="button"
        className="btn-link"
        title={`signed in as ${caller.subject}`}
        onClick={() => signOut()}
      >
        Sign out
      </button>
    </span>
  );
}

// Entry: the session (localStorage, shared by every tab), the login page, and the app.
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { signal } from '@preact/signals';
import { api, ApiError, setSession, setUnauthorizedHandler, type Session } from './api';
import { startClient, stopClient } from './server_events';
import { connection, ready } from './state';
import { App } from './app';
import { applyHash } from './routes';
import { watchUploads } from './uploads';
import './style.css';

const KEY = 'confab.session';
/**
 * Why the last session of this tab ended, kept through a reload: a page that learns its key was
 * revoked may be reloading at that moment, and the login page must still say why.
 */
const ENDED = 'confab.sessionEnded';

function readSession(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    return s && typeof s.email === 'string' && typeof s.apiKey === 'string' ? s : null;
  } catch {
    return null;
  }
}

export const session = signal<Session | null>(readSession());
const loginError = signal(session.value ? '' : (sessionStorage.getItem(ENDED) ?? ''));

function begin(s: Session): void {
  sessionStorage.removeItem(ENDED);
  setSession(s);
  session.value = s;
  connection.value = 'loading';
  startClient().catch((e) => {
    if (e instanceof ApiError && e.status === 401) logout('Your session has ended. Please log in again.');
  });
  applyHash();
}

export function logout(message = ''): void {
  stopClient();
  localStorage.removeItem(KEY);
  setSession(null);
  session.value = null;
  loginError.value = message;
  if (message) sessionStorage.setItem(ENDED, message);
  else sessionStorage.removeItem(ENDED);
}

setUnauthorizedHandler(() => logout('Your session has ended. Please log in again.'));

// Another tab logged in or out: follow it.
window.addEventListener('storage', (e) => {
  if (e.key !== KEY) return;
  const s = readSession();
  if (!s) {
    if (session.value) logout();
  } else if (!session.value || s.apiKey !== session.value.apiKey) {
    stopClient();
    begin(s);
  }
});

function Login() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    loginError.value = '';
    try {
      const res = await api.post('/fetch_api_key', { username: email.trim(), password });
      const s = { email: res.email, apiKey: res.api_key };
      localStorage.setItem(KEY, JSON.stringify(s));
      begin(s);
    } catch (err) {
      loginError.value =
        err instanceof ApiError
          ? err.code === 'USER_DEACTIVATED'
            ? 'This account has been deactivated.'
            : err.status === 401 || err.code === 'AUTHENTICATION_FAILED'
              ? 'Wrong email or password.'
              : err.message
          : 'The server cannot be reached.';
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="login-box" onSubmit={submit}>
        <h1>Confab</h1>
        <p class="muted">Log in to your organization</p>
        <label for="login-email">Email</label>
        <input id="login-email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="login-password">Password</label>
        <input id="login-password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        {loginError.value && (
          <p class="error" role="alert">
            {loginError.value}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Log in
        </button>
        <p class="muted">
          <a href="/accounts/password/reset/">Forgot your password?</a>
        </p>
      </form>
    </main>
  );
}

function Root() {
  if (!session.value) return <Login />;
  if (!ready.value)
    return (
      <main class="loading" aria-busy="true">
        <p role="status">{connection.value === 'reconnecting' ? 'Reconnecting…' : 'Loading…'}</p>
      </main>
    );
  return <App onLogout={() => logout()} />;
}

const initial = session.value;
if (initial) begin(initial);
const root = document.getElementById('app')!;
watchUploads(root);
render(<Root />, root);

import { useState } from 'preact/hooks';
import { api, ApiError, describe, type Me } from './api';

/** The warehouse is remembered on the device: a handheld belongs to one warehouse. */
const WAREHOUSE_KEY = 'pickport.warehouse';

export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn(me: Me): void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const warehouse = String(form.get('warehouse')).trim();
    setBusy(true);
    setError(null);
    try {
      const me = await api('POST', '/session', { body: { warehouse, username: String(form.get('username')).trim(), pin: String(form.get('pin')) } });
      localStorage.setItem(WAREHOUSE_KEY, warehouse);
      onSignedIn(me);
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 401 ? 'Warehouse, user or PIN not recognised.' : describe(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>Pickport console</h1>
      <form onSubmit={submit} class="stack">
        {notice && <p role="status">{notice}</p>}
        <label for="warehouse">Warehouse</label>
        <input id="warehouse" name="warehouse" required autocomplete="organization" autocapitalize="off" defaultValue={localStorage.getItem(WAREHOUSE_KEY) ?? ''} />
        <label for="username">User</label>
        <input id="username" name="username" required autocomplete="username" autocapitalize="off" spellcheck={false} />
        <label for="pin">PIN</label>
        <input id="pin" name="pin" type="password" required inputMode="numeric" autocomplete="current-password" pattern="[0-9]{6,12}" title="6 to 12 digits" />
        <p role="alert" class="message error">
          {error ?? ''}
        </p>
        <button type="submit" class="primary big" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

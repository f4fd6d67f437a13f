import { useState } from 'preact/hooks';
import { api, type Json } from '../api';
import { Badge, ErrorNotice, Field, PageTitle, PermissionPicker, SecretOnce, useAction, useLoad, when } from '../ui';

const GRACE_CHOICES: [number, string][] = [
  [0, 'none (the old value stops at once)'],
  [3600, '1 hour'],
  [86400, '24 hours'],
  [604800, '7 days'],
];

function keyState(k: Json): [string, string] {
  if (k.revoked_at) return ['revoked', 'bad'];
  if (k.expires_at && new Date(k.expires_at) < new Date()) return ['expired', 'bad'];
  return ['active', 'good'];
}

/** System settings › API management (docs/rules.md#api-keys): create, roll with a grace period, revoke. */
export function ApiKeys() {
  const keys = useLoad(() => api.listApiKeys(), []);
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [shown, setShown] = useState<{ label: string; value: string } | null>(null);
  const [grace, setGrace] = useState(86400);
  const create = useAction();
  const change = useAction();

  return (
    <section>
      <PageTitle>API keys</PageTitle>
      <p class="muted">Keys authenticate scripts and servers (X-API-Key header). Give each key only the permissions it needs, and roll it every 90 days.</p>
      {shown && <SecretOnce label={shown.label} value={shown.value} />}
      <form
        class="card"
        aria-labelledby="new-key"
        onSubmit={(e) => {
          e.preventDefault();
          create.run(async () => {
            const k = await api.createApiKey({ name, permissions, ...(expires ? { expires_at: new Date(`${expires}T23:59:59Z`).toISOString() } : {}) });
            setShown({ label: `New key “${k.name}”:`, value: k.key });
            setName('');
            setPermissions([]);
            setExpires('');
            keys.reload();
          });
        }}
      >
        <h2 id="new-key">Create a key</h2>
        <ErrorNotice error={create.error} />
        <div class="row">
          <Field label="Key name" id="key-name">
            <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <Field label="Expires on (optional)" id="key-expires" hint="The key stops working at the end of that day (UTC).">
            <input
              id="key-expires"
              type="date"
              value={expires}
              aria-describedby="key-expires-hint"
              onInput={(e) => setExpires((e.target as HTMLInputElement).value)}
            />
          </Field>
        </div>
        <PermissionPicker legend="Permissions" value={permissions} onChange={setPermissions} idPrefix="key-perm" />
        <button type="submit" class="primary" disabled={create.busy}>
          Create key
        </button>
      </form>

      <ErrorNotice error={keys.error ?? change.error} />
      <div class="row controls">
        <Field label="Grace period when rolling" id="roll-grace">
          <select id="roll-grace" value={grace} onChange={(e) => setGrace(Number((e.target as HTMLSelectElement).value))}>
            {GRACE_CHOICES.map(([s, l]) => (
              <option key={s} value={s}>
                {l}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <table>
        <caption>Keys of this environment</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Permissions</th>
            <th scope="col">State</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.items.map((k) => {
            const [state, tone] = keyState(k);
            return (
              <tr key={k.id}>
                <th scope="row">{k.name}</th>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td class="small">{k.permissions.join(' ')}</td>
                <td>
                  <Badge tone={tone}>{state}</Badge>
                  {k.previous_value_expires_at && !k.revoked_at && <div class="small muted">previous value until {when(k.previous_value_expires_at)}</div>}
                </td>
                <td class="small">{when(k.created_at)}</td>
                <td class="small">{when(k.expires_at)}</td>
                <td class="small">{k.last_used_at ? when(k.last_used_at) : 'never'}</td>
                <td class="actions">
                  {!k.revoked_at && (
                    <>
                      <button
                        type="button"
                        aria-label={`Roll ${k.name}`}
                        disabled={change.busy}
                        onClick={() =>
                          change.run(async () => {
                            const r = await api.rollApiKey(k.id, grace);
                            setShown({ label: `New value of “${k.name}”:`, value: r.key });
                            keys.reload();
                          })
                        }
                      >
                        Roll
                      </button>
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Revoke ${k.name}`}
                        disabled={change.busy}
                        onClick={() =>
                          confirm(`Revoke “${k.name}”? Requests with it fail from now on.`) &&
                          change.run(async () => {
                            await api.revokeApiKey(k.id);
                            keys.reload();
                          })
                        }
                      >
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {keys.data && keys.data.items.length === 0 && <p class="muted">No keys yet.</p>}
    </section>
  );
}

import { useState } from 'preact/hooks';
import { api, type Json } from '../api';
import { Badge, ErrorNotice, Field, PageTitle, PermissionPicker, useAction, useLoad, when } from '../ui';

/** Users of the tenant (administrators, system:admin): create, disable or enable, permissions. */
export function Users() {
  const users = useLoad(() => api.listUsers(), []);
  const empty = { username: '', name: '', password: '', permissions: [] as string[] };
  const [f, setF] = useState(empty);
  const [editing, setEditing] = useState<Json | null>(null);
  const create = useAction();
  const change = useAction();
  const text = (k: 'username' | 'name' | 'password') => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });

  return (
    <section>
      <PageTitle>Users</PageTitle>
      <form
        class="card"
        aria-labelledby="new-user"
        onSubmit={(e) => {
          e.preventDefault();
          create.run(async () => {
            await api.createUser({ username: f.username, name: f.name, password: f.password, permissions: f.permissions });
            setF({ ...empty, permissions: [] });
            users.reload();
          });
        }}
      >
        <h2 id="new-user">Create a user</h2>
        <ErrorNotice error={create.error} />
        <div class="row">
          <Field label="Username" id="user-username">
            <input id="user-username" required autocomplete="off" value={f.username} onInput={text('username')} />
          </Field>
          <Field label="Full name" id="user-name">
            <input id="user-name" required value={f.name} onInput={text('name')} />
          </Field>
          <Field label="Initial password" id="user-password" hint="At least 8 characters; a long passphrase is best.">
            <input
              id="user-password"
              type="password"
              autocomplete="new-password"
              required
              value={f.password}
              aria-describedby="user-password-hint"
              onInput={text('password')}
            />
          </Field>
        </div>
        <PermissionPicker legend="Permissions" value={f.permissions} onChange={(permissions) => setF({ ...f, permissions })} idPrefix="user-perm" />
        <button type="submit" class="primary" disabled={create.busy}>
          Create user
        </button>
      </form>

      {editing && (
        <form
          class="card"
          aria-labelledby="edit-user"
          onSubmit={(e) => {
            e.preventDefault();
            change.run(async () => {
              await api.updateUser(editing.id, { permissions: editing.permissions, version: editing.version });
              setEditing(null);
              users.reload();
            });
          }}
        >
          <h2 id="edit-user">Permissions of {editing.name}</h2>
          <PermissionPicker
            legend={`Permissions of ${editing.username}`}
            value={editing.permissions}
            onChange={(permissions) => setEditing({ ...editing, permissions })}
            idPrefix="edit-perm"
          />
          <div class="actions">
            <button type="submit" class="primary" disabled={change.busy}>
              Save permissions
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}

      <ErrorNotice error={users.error ?? change.error} />
      <table>
        <caption>Users of the tenant</caption>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Name</th>
            <th scope="col">Permissions</th>
            <th scope="col">State</th>
            <th scope="col">Last sign-in</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {users.data?.items.map((u) => (
            <tr key={u.id}>
              <th scope="row">{u.username}</th>
              <td>{u.name}</td>
              <td class="small">{u.permissions.join(' ')}</td>
              <td>
                {u.disabled ? <Badge tone="bad">disabled</Badge> : <Badge tone="good">enabled</Badge>}
                {u.locked_until && new Date(u.locked_until) > new Date() && <Badge tone="warn">locked</Badge>}
              </td>
              <td class="small">{when(u.last_login_at)}</td>
              <td class="actions">
                <button type="button" aria-label={`Edit permissions of ${u.username}`} onClick={() => setEditing({ ...u })}>
                  Permissions
                </button>
                <button
                  type="button"
                  class={u.disabled ? '' : 'danger'}
                  aria-label={`${u.disabled ? 'Enable' : 'Disable'} ${u.username}`}
                  disabled={change.busy}
                  onClick={() => change.run(async () => (await api.updateUser(u.id, { disabled: !u.disabled, version: u.version }), users.reload()))}
                >
                  {u.disabled ? 'Enable' : 'Disable'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

import { useState } from 'preact/hooks';
import { session } from '../api';
import { ErrorNotice, Field, useAction } from '../ui';

export function SignIn({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  return (
    <main class="signin">
      <h1>Sign in to the console</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          action.run(async () => {
            await session.signIn(username, password);
            setPassword('');
            await onSignedIn();
          });
        }}
      >
        <ErrorNotice error={action.error} id="signin-error" />
        <Field label="Username" id="username">
          <input
            id="username"
            autocomplete="username"
            required
            value={username}
            onInput={(e) => setUsername((e.target as HTMLInputElement).value)}
            aria-describedby={action.error ? 'signin-error' : undefined}
          />
        </Field>
        <Field label="Password" id="password">
          <input
            id="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          />
        </Field>
        <button type="submit" class="primary" disabled={action.busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

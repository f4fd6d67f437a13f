import { useEffect, useState } from 'preact/hooks';
import { api, session, whenSignedOut, type Json } from './api';
import { href, useRoute } from './router';
import { SignIn } from './pages/sign-in';
import { ApiKeys } from './pages/api-keys';
import { Projects } from './pages/projects';
import { ProjectDetail } from './pages/project-detail';
import { PointDetail } from './pages/point-detail';
import { Webhooks } from './pages/webhooks';
import { WebhookDetail } from './pages/webhook-detail';
import { Users } from './pages/users';
import { Reports } from './pages/reports';
import { Overview } from './pages/overview';

const NAV: [string, string][] = [
  ['overview', 'Overview'],
  ['keys', 'API keys'],
  ['projects', 'Projects'],
  ['webhooks', 'Webhooks'],
  ['reports', 'Reports'],
  ['users', 'Users'],
];

export function App() {
  const [state, setState] = useState<'starting' | 'out' | 'in'>('starting');
  const [me, setMe] = useState<Json>();
  const route = useRoute();

  const enter = async () => {
    setMe(await api.me());
    setState('in');
  };
  useEffect(() => {
    whenSignedOut(() => setState('out'));
    // A reload keeps the session: the refresh cookie gives a new access token.
    session.resume().then((ok) => (ok ? enter().catch(() => setState('out')) : setState('out')));
  }, []);

  if (state === 'starting') return <p class="loading">Loading…</p>;
  if (state === 'out') return <SignIn onSignedIn={enter} />;

  const [page, ...rest] = route;
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Monitoring Platform</span>
        <span class={`env ${me?.environment}`} title="Environment of this console">
          {me?.environment === 'sandbox' ? 'Sandbox' : 'Live'}
        </span>
        <span class="who">
          {me?.name} · {me?.tenant?.name}
        </span>
        <button
          type="button"
          class="link"
          onClick={async () => {
            await session.signOut();
            setState('out');
          }}
        >
          Sign out
        </button>
      </header>
      <nav aria-label="Console">
        <ul>
          {NAV.map(([id, label]) => (
            <li key={id}>
              <a href={href(id)} aria-current={page === id || (page === 'points' && id === 'projects') ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {page === 'overview' && <Overview />}
        {page === 'keys' && <ApiKeys />}
        {page === 'projects' && !rest[0] && <Projects />}
        {page === 'projects' && rest[0] && <ProjectDetail projectId={rest[0]} />}
        {page === 'points' && rest[0] && <PointDetail pointId={rest[0]} />}
        {page === 'webhooks' && !rest[0] && <Webhooks />}
        {page === 'webhooks' && rest[0] && <WebhookDetail webhookId={rest[0]} />}
        {page === 'users' && <Users />}
        {page === 'reports' && <Reports />}
      </main>
    </div>
  );
}

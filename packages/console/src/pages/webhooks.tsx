import { useState } from 'preact/hooks';
import { api } from '../api';
import { href } from '../router';
import { EVENT_GROUPS, rate } from '../events';
import { Badge, ErrorNotice, Field, PageTitle, SecretOnce, useAction, useLoad, when } from '../ui';

export function Webhooks() {
  const list = useLoad(() => api.listWebhooks(), []);
  const empty = { name: '', url: 'https://', events: [] as string[], max_retries: '3', retry_interval: '5', active: true };
  const [f, setF] = useState(empty);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useAction();
  return (
    <section>
      <PageTitle>Webhooks</PageTitle>
      <p class="muted">The platform POSTs each subscribed event to your HTTPS address, signed with the webhook's secret (X-Service-Signature).</p>
      {secret && <SecretOnce label="Signing secret of the new webhook:" value={secret} />}
      <SourceAddresses />
      <form
        class="card"
        aria-labelledby="new-webhook"
        onSubmit={(e) => {
          e.preventDefault();
          create.run(async () => {
            const w = await api.createWebhook({
              name: f.name,
              url: f.url,
              events: f.events,
              retry_policy: { max_retries: Number(f.max_retries), retry_interval: Number(f.retry_interval) },
              active: f.active,
            });
            setSecret(w.secret);
            setF({ ...empty, events: [] });
            list.reload();
          });
        }}
      >
        <h2 id="new-webhook">Create a webhook</h2>
        <ErrorNotice error={create.error} />
        <div class="row">
          <Field label="Webhook name" id="wh-name">
            <input id="wh-name" required value={f.name} onInput={(e) => setF({ ...f, name: (e.target as HTMLInputElement).value })} />
          </Field>
          <Field label="Receiving URL (HTTPS)" id="wh-url">
            <input
              id="wh-url"
              type="url"
              required
              pattern="https://.*"
              value={f.url}
              onInput={(e) => setF({ ...f, url: (e.target as HTMLInputElement).value })}
            />
          </Field>
        </div>
        <fieldset class="events">
          <legend>Events</legend>
          {EVENT_GROUPS.map(([group, events]) => (
            <div key={group} class="event-group">
              <span class="muted small">{group}</span>
              {events.map((ev) => (
                <label key={ev} class="check">
                  <input
                    type="checkbox"
                    checked={f.events.includes(ev)}
                    onChange={(e) => setF({ ...f, events: (e.target as HTMLInputElement).checked ? [...f.events, ev] : f.events.filter((x) => x !== ev) })}
                  />
                  {ev}
                </label>
              ))}
            </div>
          ))}
        </fieldset>
        <div class="row">
          <Field label="Maximum retries" id="wh-retries" hint="After a 5xx or a time-out; 4xx is not retried.">
            <input
              id="wh-retries"
              type="number"
              min="0"
              max="10"
              required
              value={f.max_retries}
              aria-describedby="wh-retries-hint"
              onInput={(e) => setF({ ...f, max_retries: (e.target as HTMLInputElement).value })}
            />
          </Field>
          <Field label="First retry after (seconds)" id="wh-interval" hint="Each further wait is 5 times longer.">
            <input
              id="wh-interval"
              type="number"
              min="1"
              max="3600"
              required
              value={f.retry_interval}
              aria-describedby="wh-interval-hint"
              onInput={(e) => setF({ ...f, retry_interval: (e.target as HTMLInputElement).value })}
            />
          </Field>
          <label class="check inline">
            <input type="checkbox" checked={f.active} onChange={(e) => setF({ ...f, active: (e.target as HTMLInputElement).checked })} />
            Active
          </label>
        </div>
        <button type="submit" class="primary" disabled={create.busy}>
          Create webhook
        </button>
      </form>

      <ErrorNotice error={list.error} />
      <table>
        <caption>Webhooks of this environment</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">State</th>
            <th scope="col">Success rate (24 h)</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.items.map((w) => (
            <tr key={w.id}>
              <th scope="row">
                <a href={href('webhooks', w.id)}>{w.name}</a>
              </th>
              <td class="small">
                <code>{w.url}</code>
              </td>
              <td class="small">{w.events.join(' ')}</td>
              <td>{w.active ? <Badge tone="good">active</Badge> : <Badge tone="idle">paused</Badge>}</td>
              <td>{rate(w.success_rate)}</td>
              <td class="small">{when(w.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.items.length === 0 && <p class="muted">No webhooks yet.</p>}
    </section>
  );
}

/**
 * The optional list of permitted source addresses (docs/rules.md#webhook-targets): where deliveries come from, so that a
 * receiver may accept only those (GET /system/config, set by the operator; ADR 0057).
 */
function SourceAddresses() {
  const config = useLoad(() => api.getSystemConfig(), []);
  const list: string[] = config.data?.webhook_source_addresses ?? [];
  if (!config.data) return null;
  return (
    <section class="card" aria-labelledby="source-addresses">
      <h2 id="source-addresses">Source addresses</h2>
      {list.length ? (
        <>
          <p class="muted small">
            Deliveries of this platform come from these addresses. Optionally, let your receiver accept requests from them only (the signature check is still
            needed).
          </p>
          <ul class="addresses" aria-labelledby="source-addresses">
            {list.map((a) => (
              <li key={a}>
                <code>{a}</code>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p class="muted small">The operator has not published the addresses deliveries come from; verify each delivery by its signature.</p>
      )}
    </section>
  );
}

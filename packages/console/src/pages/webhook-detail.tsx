import { useEffect, useState } from 'preact/hooks';
import { api, type Json } from '../api';
import { go, href } from '../router';
import { Badge, ErrorNotice, Field, PageTitle, SecretOnce, useAction, useLoad, when } from '../ui';
import { EVENT_GROUPS, rate } from '../events';

const ALL_EVENTS = EVENT_GROUPS.flatMap(([, e]) => e);
const PENDING_REFRESH_MS = 2000;

/** One webhook: delivery statistics, a test event, secret rotation, and the deliveries with every attempt. */
export function WebhookDetail({ webhookId }: { webhookId: string }) {
  const hook = useLoad(() => api.getWebhook(webhookId), [webhookId]);
  const [filter, setFilter] = useState({ status: '', event_type: '' });
  const deliveries = useLoad(() => api.listDeliveries(webhookId, filter), [webhookId, filter]);
  const [open, setOpen] = useState<Json | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [grace, setGrace] = useState('86400');
  const [notice, setNotice] = useState('');
  const act = useAction();
  const w = hook.data;
  const refresh = () => (hook.reload(), deliveries.reload());
  // While a delivery is still under way the list reads itself again, so its outcome appears.
  const pending = deliveries.data?.items.some((d) => d.status === 'pending') ?? false;
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(refresh, PENDING_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [pending, deliveries.data]);
  const show = (deliveryId: string) => act.run(async () => setOpen(await api.getDelivery(webhookId, deliveryId)));

  return (
    <section>
      <p class="crumbs">
        <a href={href('webhooks')}>Webhooks</a> ›
      </p>
      <PageTitle>{w ? `Webhook ${w.name}` : 'Webhook'}</PageTitle>
      <ErrorNotice error={hook.error ?? act.error} />
      {secret && <SecretOnce label="New signing secret:" value={secret} />}
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      {w && (
        <div class="card">
          <dl class="facts">
            <dt>URL</dt>
            <dd>
              <code>{w.url}</code>
            </dd>
            <dt>Events</dt>
            <dd>{w.events.join(', ')}</dd>
            <dt>Retry policy</dt>
            <dd>
              {w.retry_policy.max_retries} retries, first after {w.retry_policy.retry_interval} s
            </dd>
            <dt>State</dt>
            <dd>{w.active ? <Badge tone="good">active</Badge> : <Badge tone="idle">paused</Badge>}</dd>
            <dt>Success rate (24 h)</dt>
            <dd>
              {rate(w.success_rate)}
              {w.delivery_stats && (
                <span class="muted small">
                  {' '}
                  · {w.delivery_stats.delivered} delivered, {w.delivery_stats.failed} failed, {w.delivery_stats.pending} pending
                </span>
              )}
            </dd>
            {w.secret_rotation && (
              <>
                <dt>Secret rotation</dt>
                <dd>the new secret signs from {when(w.secret_rotation.new_secret_signs_from)}</dd>
              </>
            )}
          </dl>
          <div class="actions">
            <button
              type="button"
              class="primary"
              disabled={act.busy}
              onClick={() =>
                act.run(async () => {
                  const d = await api.testWebhook(webhookId);
                  setNotice(`Test event sent: delivery ${d.delivery_id} (${d.status}).`);
                  refresh();
                })
              }
            >
              Send test event
            </button>
            <button
              type="button"
              disabled={act.busy}
              onClick={() => act.run(async () => (await api.updateWebhook(webhookId, { active: !w.active }), refresh()))}
            >
              {w.active ? 'Pause deliveries' : 'Resume deliveries'}
            </button>
            <button
              type="button"
              class="danger"
              disabled={act.busy}
              onClick={() => confirm(`Delete webhook “${w.name}”?`) && act.run(async () => (await api.deleteWebhook(webhookId), go('webhooks')))}
            >
              Delete
            </button>
          </div>
          <form
            class="row controls"
            onSubmit={(e) => {
              e.preventDefault();
              act.run(async () => {
                const r = await api.rotateWebhookSecret(webhookId, Number(grace));
                setSecret(r.secret);
                refresh();
              });
            }}
          >
            <Field label="Old secret keeps signing for" id="rotate-grace">
              <select id="rotate-grace" value={grace} onChange={(e) => setGrace((e.target as HTMLSelectElement).value)}>
                <option value="0">no time (switch now)</option>
                <option value="3600">1 hour</option>
                <option value="86400">24 hours</option>
              </select>
            </Field>
            <button type="submit" disabled={act.busy}>
              Rotate secret
            </button>
          </form>
        </div>
      )}

      <div class="card">
        <h2 id="deliveries">Deliveries</h2>
        <div class="row controls">
          <Field label="Delivery status" id="del-status">
            <select id="del-status" value={filter.status} onChange={(e) => setFilter({ ...filter, status: (e.target as HTMLSelectElement).value })}>
              <option value="">all</option>
              <option value="delivered">delivered</option>
              <option value="failed">failed</option>
              <option value="pending">pending</option>
            </select>
          </Field>
          <Field label="Event type" id="del-event">
            <select id="del-event" value={filter.event_type} onChange={(e) => setFilter({ ...filter, event_type: (e.target as HTMLSelectElement).value })}>
              <option value="">all</option>
              {ALL_EVENTS.map((ev) => (
                <option key={ev} value={ev}>
                  {ev}
                </option>
              ))}
              <option value="webhook.test">webhook.test</option>
            </select>
          </Field>
          <button type="button" onClick={refresh}>
            Refresh
          </button>
        </div>
        <ErrorNotice error={deliveries.error} />
        <table>
          <caption>Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">HTTP</th>
              <th scope="col">Duration</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data?.items.map((d) => (
              <tr key={d.delivery_id}>
                <th scope="row">
                  {d.event_type}
                  <div class="small muted">{d.event_id}</div>
                </th>
                <td>
                  <Badge tone={d.status === 'delivered' ? 'good' : d.status === 'failed' ? 'bad' : 'info'}>{d.status}</Badge>
                  {d.error && <div class="small">{d.error}</div>}
                </td>
                <td>{d.http_status ?? '—'}</td>
                <td>{d.duration_ms != null ? `${d.duration_ms} ms` : '—'}</td>
                <td class="small">{when(d.created_at)}</td>
                <td class="actions">
                  <button type="button" aria-label={`Attempts of ${d.delivery_id}`} onClick={() => show(d.delivery_id)}>
                    Attempts
                  </button>
                  {d.status !== 'pending' && (
                    <button
                      type="button"
                      aria-label={`Resend ${d.delivery_id}`}
                      disabled={act.busy}
                      onClick={() =>
                        act.run(async () => {
                          const r = await api.resendDelivery(webhookId, d.delivery_id);
                          setNotice(`Delivery ${r.delivery_id} queued again.`);
                          refresh();
                        })
                      }
                    >
                      Resend
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {deliveries.data && deliveries.data.items.length === 0 && <p class="muted">No deliveries match.</p>}
      </div>

      {open && (
        <div class="card" role="region" aria-labelledby="attempts-title">
          <h2 id="attempts-title">Attempts of {open.delivery_id}</h2>
          <table>
            <caption>Every attempt of this delivery</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Started</th>
                <th scope="col">Outcome</th>
                <th scope="col">HTTP</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {open.attempts.map((a: Json) => (
                <tr key={`${a.cycle}-${a.attempt}`}>
                  <th scope="row">
                    {a.cycle > 0 ? `resend ${a.cycle} · ` : ''}
                    {a.attempt}
                  </th>
                  <td class="small">{when(a.started_at)}</td>
                  <td>{a.outcome}</td>
                  <td>{a.http_status ?? '—'}</td>
                  <td>{a.duration_ms} ms</td>
                  <td class="small">{a.error ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <button type="button" onClick={() => setOpen(null)}>
            Close
          </button>
        </div>
      )}
    </section>
  );
}

import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { PERMISSIONS } from '@mp/contracts/vocabulary';

/** Loads data for a page; `reload` runs it again after a change. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(undefined)),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, error, reload: useCallback(() => setTick((t) => t + 1), []) };
}

/** Runs an action of a form or button, keeping its error to show next to it. */
export function useAction(): { busy: boolean; error: unknown; run: (f: () => Promise<void>) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (f: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await f();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

/** An API refusal as the user should read it: message, detail, what to do, and the request id for support. */
export function ErrorNotice({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <div class="notice error" role="alert" id={id}>
      <strong>{e ? `${e.message} (${e.code})` : String((error as Error)?.message ?? error)}</strong>
      {e?.detail && <p>{e.detail}</p>}
      {e?.suggestion && <p class="muted">{e.suggestion}</p>}
      {e?.requestId && <p class="muted small">Request {e.requestId}</p>}
    </div>
  );
}

export function Field(props: { label: string; id: string; children: ComponentChildren; hint?: string }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <span class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </span>
      )}
    </div>
  );
}

/** The page's title; it takes the focus when the page opens, so that screen readers announce it. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** A value shown once (a key, a signing secret) with a button that copies it. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState<string>('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('Copying is not allowed here: select the value and copy it by hand.');
    }
  };
  return (
    <div class="notice success" role="status">
      <p>
        <strong>{label}</strong> It is shown only now: store it safely.
      </p>
      <div class="secret">
        <code aria-label={label}>{value}</code>
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="muted small" aria-live="polite">
        {copied}
      </p>
    </div>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '—');

export function Badge({ tone, children }: { tone: string; children: ComponentChildren }) {
  return <span class={`badge ${tone}`}>{children}</span>;
}

export { PERMISSIONS };

/** Checkboxes for permission identifiers (docs/rules.md#permissions) in a labelled group. */
export function PermissionPicker({
  legend,
  value,
  onChange,
  idPrefix,
}: {
  legend: string;
  value: string[];
  onChange: (v: string[]) => void;
  idPrefix: string;
}) {
  return (
    <fieldset class="permissions">
      <legend>{legend}</legend>
      {PERMISSIONS.map((p) => (
        <label key={p} class="check">
          <input
            type="checkbox"
            id={`${idPrefix}-${p}`}
            checked={value.includes(p)}
            onChange={(e) => onChange((e.target as HTMLInputElement).checked ? [...value, p] : value.filter((x) => x !== p))}
          />
          {p}
        </label>
      ))}
    </fieldset>
  );
}

/** The API's `field` of a refusal, when there is one. */
export const refusedField = (error: unknown): string | null => (error instanceof ApiError ? error.field : null);

/**
 * A refusal shown next to the form field it names (the envelope's `field`, e.g.
 * `thresholds.warning` or `trigger_levels[1].below`); `fields` are the names shown beside inputs.
 */
export function FieldError({ error, field }: { error: unknown; field: string }) {
  return refusedField(error) === field ? <ErrorNotice error={error} id={`error-${field.replace(/[^a-z0-9_]+/gi, '-')}`} /> : null;
}

/** A refusal whose `field` no input of the form shows: it is shown above the form instead. */
export function FormError({ error, fields }: { error: unknown; fields: string[] }) {
  const f = refusedField(error);
  return f !== null && fields.includes(f) ? null : <ErrorNotice error={error} />;
}

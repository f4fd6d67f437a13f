import { collectDefaultMetrics, Counter, Gauge, Histogram, register, type Registry } from 'prom-client';

/**
 * Metrics belong to the process (ADR 0036): every module registers on prom-client's process
 * registry, and the process serves it on its ops port. In the embedded default every service runs
 * in one process, so one /metrics covers the whole platform; the `service` label tells the
 * services apart. A metric is defined where it is counted, by name, and the second definer (a
 * second service in the same process, a second test platform) gets the first one's instance.
 *
 * Labels are bounded: methods, route templates, status codes, outcomes, reasons, service names.
 * Never an id of a tenant, webhook or record.
 */
export const processRegistry: Registry = register;

interface Definition<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

function existing<T>(name: string): T | undefined {
  return processRegistry.getSingleMetric(name) as T | undefined;
}

export function counter<L extends string = never>(def: Definition<L>): Counter<L> {
  return existing<Counter<L>>(def.name) ?? new Counter<L>({ ...def, labelNames: def.labelNames ?? [], registers: [processRegistry] });
}

export function gauge<L extends string = never>(def: Definition<L>): Gauge<L> {
  return existing<Gauge<L>>(def.name) ?? new Gauge<L>({ ...def, labelNames: def.labelNames ?? [], registers: [processRegistry] });
}

export function histogram<L extends string = never>(def: Definition<L> & { buckets: number[] }): Histogram<L> {
  return existing<Histogram<L>>(def.name) ?? new Histogram<L>({ ...def, labelNames: def.labelNames ?? [], registers: [processRegistry] });
}

/** Latency buckets (seconds) shared by request, call and delivery durations. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type Sample<L extends string> = { labels: Partial<Record<L, string>>; value: number };
const sources = new WeakMap<Gauge<string>, Set<() => Promise<Sample<string>[]>>>();

/**
 * A gauge read when scraped from every source registered on it (one per service in the process):
 * for values that live in a database, such as an outbox's backlog. Returns the unregister call.
 */
export function sampledGauge<L extends string>(def: Definition<L>, source: () => Promise<Sample<L>[]>): () => void {
  let g = existing<Gauge<L>>(def.name);
  if (!g) {
    const set = new Set<() => Promise<Sample<string>[]>>();
    g = new Gauge<L>({
      ...def,
      labelNames: def.labelNames ?? [],
      registers: [processRegistry],
      async collect() {
        this.reset();
        const results = await Promise.allSettled([...set].map((read) => read()));
        for (const r of results) if (r.status === 'fulfilled') for (const s of r.value) this.set(s.labels as never, s.value);
      },
    });
    sources.set(g as Gauge<string>, set);
  }
  const set = sources.get(g as Gauge<string>)!;
  set.add(source as () => Promise<Sample<string>[]>);
  return () => set.delete(source as () => Promise<Sample<string>[]>);
}

/**
 * One read shared by every gauge of one scrape: the first caller starts it, the others of the same
 * scrape get its promise, and the next scrape reads anew (for gauges that share one query).
 */
export function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => (pending ??= read().finally(() => setImmediate(() => (pending = null))));
}

let defaultsCollected = false;

/** The ops server's /metrics: this process's metrics, with its memory, CPU and event-loop lag. */
export function processMetrics(): () => Promise<{ contentType: string; text: string }> {
  if (!defaultsCollected) {
    defaultsCollected = true;
    collectDefaultMetrics({ register: processRegistry, prefix: 'mp_' });
  }
  return async () => ({ contentType: processRegistry.contentType, text: await processRegistry.metrics() });
}

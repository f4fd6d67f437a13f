/** Polls `check` until it returns a truthy value or the time runs out. */
export async function waitUntil<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  opts: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(opts.message ?? 'condition not met in time');
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}

/**
 * Stops a standalone service process cleanly on SIGINT/SIGTERM: each step in order (server first,
 * so in-flight calls finish; then transport and database), then exit.
 */
export function stopOnSignals(...steps: (() => Promise<void>)[]): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      for (const step of steps) await step();
      process.exit(0);
    });
  }
}

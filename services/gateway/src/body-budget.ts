/**
 * The bytes of request bodies that one gateway process holds at once, across every request of
 * both ports. A body is read only once its bytes are reserved here (all of a Content-Length up
 * front, a chunked body chunk by chunk), and they are given back when its response is done; past
 * the budget a request is refused with 503002 instead of adding to the heap (ADR 0017).
 */
export class BodyBudget {
  private reserved = 0;

  constructor(readonly capacityBytes: number) {}

  /** Reserves `bytes`; false (and nothing reserved) when they do not fit. */
  tryReserve(bytes: number): boolean {
    if (this.reserved + bytes > this.capacityBytes) return false;
    this.reserved += bytes;
    return true;
  }

  release(bytes: number): void {
    this.reserved = Math.max(0, this.reserved - bytes);
  }

  get reservedBytes(): number {
    return this.reserved;
  }
}

import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** What one piece of the body is written as: small, so that a slow reader still shows progress. */
const WRITE_SIZE = 64 * 1024;

/**
 * A body fetched piece by piece (a report's document from the reports service) and written only
 * as fast as the client takes it: the next piece is asked for when the previous one has been
 * written and the response has drained, never ahead. A download so holds at most one fetched piece
 * in memory, whatever the client does; a client that stops reading stops the fetching too, and
 * the send deadline (send-deadline.ts) ends it.
 */
export function pacedBody(res: ServerResponse, first: Buffer, fetchNext: (offset: number) => Promise<Buffer | null>): Readable {
  let piece: Buffer | null = first;
  let offset = first.length;
  let written = 0;
  const drained = () =>
    new Promise<void>((resolve) => {
      if (!res.writableNeedDrain) return resolve();
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  return new Readable({
    read() {
      void (async () => {
        try {
          if (piece && written >= piece.length) {
            await drained();
            if (res.destroyed) return this.destroy();
            piece = await fetchNext(offset);
            written = 0;
            if (piece) offset += piece.length;
          }
          if (!piece) return this.push(null);
          const slice = piece.subarray(written, written + WRITE_SIZE);
          written += slice.length;
          this.push(slice);
        } catch (err) {
          this.destroy(err as Error);
        }
      })();
    },
  });
}

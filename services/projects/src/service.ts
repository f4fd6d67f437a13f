import type { Database } from '@mp/db';
import { OutboxRelay, type EventTransport } from '@mp/events';
import { startGrpcServer } from '@mp/grpc';
import { systemClock, type Clock, type Logger } from '@mp/kit';
import { projectsBinding } from './handlers.js';

export interface ProjectsServiceOptions {
  db: Database;
  transport: EventTransport;
  logger: Logger;
  host?: string;
  port: number;
  clock?: Clock;
}

export interface RunningService {
  port: number;
  stop(): Promise<void>;
}

/** Starts the projects gRPC service and its outbox relay on an already migrated database. */
export async function startProjectsService(opts: ProjectsServiceOptions): Promise<RunningService> {
  const relay = new OutboxRelay({ db: opts.db, transport: opts.transport, logger: opts.logger });
  const deps = { db: opts.db, relay, logger: opts.logger, clock: opts.clock ?? systemClock };
  const server = await startGrpcServer({ host: opts.host, port: opts.port, services: [projectsBinding(deps)], logger: opts.logger });
  relay.start();
  return {
    port: server.port,
    async stop() {
      await server.stop();
      await relay.stop();
    },
  };
}

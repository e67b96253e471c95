/**
 * Read-only views of what the sandbox's ingestion stored, for rehearsals and tests:
 * `/_sandbox/events`, `/_sandbox/sessions`, `/_sandbox/warnings` and `/_sandbox/person`, each
 * with `?project=<id>` (default 1), the person one with `&distinct_id=`.
 */
import { json, type Route, type SandboxRequest } from '../router.js';
import type { SandboxStore } from '../sandbox-store.js';
import { eventsWithCurrentPerson, ingestionWarnings, personOfDistinctId, sessionsOf } from './ingested-data.js';

const projectOf = (req: SandboxRequest): number => Number(req.url.searchParams.get('project') ?? 1);

function route(path: RegExp, read: (store: SandboxStore, req: SandboxRequest) => unknown): Route {
  return { method: 'GET', path, handler: (req, ctx) => json(200, read(ctx.store, req)) };
}

export const debugRoutes: readonly Route[] = [
  route(/^\/_sandbox\/events\/?$/, (store, req) => eventsWithCurrentPerson(store, projectOf(req))),
  route(/^\/_sandbox\/sessions\/?$/, (store, req) => sessionsOf(store, projectOf(req))),
  route(/^\/_sandbox\/warnings\/?$/, (store, req) => ingestionWarnings(store, projectOf(req))),
  route(/^\/_sandbox\/person\/?$/, (store, req) => personOfDistinctId(store, projectOf(req), req.url.searchParams.get('distinct_id') ?? '') ?? null),
];

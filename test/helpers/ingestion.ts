/**
 * The sandbox's ingestion on an in-memory store, without HTTP: events go through capture's
 * parsing and the storing sink, as one request each `send`.
 */
import { afterEach } from 'vitest';
import { parseCapture } from '../../src/sandbox/capture/capture-parse.js';
import { CaptureSink } from '../../src/sandbox/capture/capture-sink.js';
import { eventsWithCurrentPerson, ingestionWarnings, personOfDistinctId, sessionsOf } from '../../src/sandbox/capture/ingested-data.js';
import { SandboxStore } from '../../src/sandbox/sandbox-store.js';

export const INGEST_NOW = Date.UTC(2025, 5, 1, 12);

export type Ingestion = ReturnType<typeof makeIngestion>;

function makeIngestion(clientIp: string | undefined) {
  const store = SandboxStore.open(':memory:');
  const sink = new CaptureSink(store, false);
  let uuids = 0;
  return {
    store,
    sink,
    /** One /batch/ request with these events (distinct_id "u" and timestamp filled when absent). */
    send(...events: Array<Record<string, unknown>>): void {
      const batch = events.map((e) => ({ distinct_id: 'u', timestamp: '2024-05-01T10:00:00.000Z', ...e }));
      const newUuid = () => `01970000-0000-7000-8000-${String(++uuids).padStart(12, '0')}`;
      const parsed = parseCapture(JSON.stringify({ api_key: 'phc_a', batch }), { nowMs: INGEST_NOW, newUuid });
      if ('problem' in parsed) throw new Error(parsed.error);
      sink.accept(1, parsed, { endpoint: '/batch/', receivedAt: new Date(INGEST_NOW).toISOString(), clientIp });
    },
    events: () => eventsWithCurrentPerson(store, 1),
    person: (distinctId: string) => personOfDistinctId(store, 1, distinctId),
    sessions: () => sessionsOf(store, 1),
    warnings: () => ingestionWarnings(store, 1),
  };
}

/** A fresh ingestion per call, closed after each test. */
export function useIngestion(): (clientIp?: string) => Ingestion {
  const open: SandboxStore[] = [];
  afterEach(() => {
    for (const store of open.splice(0)) store.close();
  });
  return (clientIp = '127.0.0.1') => {
    const ingestion = makeIngestion(clientIp);
    open.push(ingestion.store);
    return ingestion;
  };
}

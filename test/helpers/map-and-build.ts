/**
 * Runs a vendor mapping and then every staging rule on one record, so mapping tests assert what
 * would be staged (and so sent), not an intermediate shape.
 */
import { buildEvent, type CandidateEvent } from '../../src/events/build-event.js';
import { buildNameMap, type MappingFile } from '../../src/events/name-map.js';
import type { RowProblem } from '../../src/events/reject-reasons.js';
import { uuidText } from '../../src/events/stable-uuid.js';
import { formatTimestamp } from '../../src/events/timestamp.js';

export const NOW = Date.parse('2026-01-10T00:00:00Z');

export type Staged =
  | { type: 'event'; event: string; distinctId: string; timestamp: string; uuid: string; properties: Record<string, unknown> }
  | { type: 'rejected'; reason: string; field: string; message: string }
  | { type: 'skipped' };

export function mapAndBuild(mapped: CandidateEvent | RowProblem, renames: Readonly<Record<string, string | null>> = {}, mapping?: MappingFile): Staged {
  if ('reason' in mapped) return { type: 'rejected', reason: mapped.reason, field: mapped.field, message: mapped.message };
  const outcome = buildEvent(mapped, { nameMap: buildNameMap(mapping, renames), nowMs: NOW });
  if (outcome.type === 'skipped') return outcome;
  if (outcome.type === 'rejected') return { type: 'rejected', ...outcome.problem };
  const e = outcome.event;
  return { type: 'event', event: e.event, distinctId: e.distinctId, timestamp: formatTimestamp(e.timestampMs, e.subMsUs), uuid: uuidText(e.uuid), properties: JSON.parse(e.propertiesJson) };
}

/** The staged event, failing the test with the reason when the record was not staged. */
export function stagedEvent(staged: Staged): Extract<Staged, { type: 'event' }> {
  if (staged.type !== 'event') throw new Error(`expected an event, got ${JSON.stringify(staged)}`);
  return staged;
}

/**
 * A row of a users file as a `$identify` event: `distinct_id` required; `anon_distinct_id`
 * links an anonymous id to the user; `timestamp` and `uuid` optional; every other field goes
 * into `$set`, or `$set_once` when named by --set-once. Explicit `$set` / `$set_once` objects
 * (JSON lines) are taken as they are.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../events/canonical-json.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import type { ReaderOptions } from '../source-item.js';
import type { RecordMapper } from './record-readers.js';

const SPECIAL = new Set(['distinct_id', 'anon_distinct_id', 'timestamp', 'uuid', '$set', '$set_once']);

type ObjectField = { ok: true; value: Record<string, unknown> } | { ok: false; problem: RowProblem };

function objectField(record: Record<string, unknown>, key: string): ObjectField {
  const value = record[key];
  if (value === undefined) return { ok: true, value: {} };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, problem: problem('bad_properties', key, `${key} must be a JSON object`) };
  return { ok: true, value: { ...(value as Record<string, unknown>) } };
}

export function userToCandidate(record: Record<string, unknown>, options: ReaderOptions): CandidateEvent | RowProblem {
  const setField = objectField(record, '$set');
  if (!setField.ok) return setField.problem;
  const onceField = objectField(record, '$set_once');
  if (!onceField.ok) return onceField.problem;
  const set = setField.value;
  const setOnce = onceField.value;
  const once = new Set(options.setOnce ?? []);
  for (const [key, value] of Object.entries(record)) {
    if (SPECIAL.has(key)) continue;
    const target = once.has(key) ? setOnce : set;
    if (Object.hasOwn(target, key)) return problem('duplicate_property', key, `"${key}" is given twice`);
    target[key] = value;
  }
  const properties: Record<string, unknown> = { $set: set };
  if (Object.keys(setOnce).length > 0) properties.$set_once = setOnce;
  if (record.anon_distinct_id !== undefined && record.anon_distinct_id !== '') properties.$anon_distinct_id = String(record.anon_distinct_id);
  return {
    event: '$identify',
    distinctId: record.distinct_id,
    timestamp: record.timestamp ?? options.defaultTimestampMs,
    uuid: record.uuid,
    properties,
    identity: canonicalJson({ $identify: record }),
  };
}

export const userMapper: RecordMapper = { required: () => 'distinct_id', map: userToCandidate };

/**
 * A row of a users file as a `$identify` event: `distinct_id` required; `anon_distinct_id`
 * links an anonymous id to the user; `timestamp` and `uuid` optional; every other field goes
 * into `$set`, or `$set_once` when named by --set-once. Explicit `$set` / `$set_once` objects
 * (JSON lines) are taken as they are.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../json/canonical-json.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { valueAtPath } from '../json-columns.js';
import { setOwnProperty } from '../../json/own-property.js';
import type { ReaderOptions } from '../source-item.js';
import { roleName, type RecordMapper, type RecordRole } from './record-readers.js';

const ROLES: RecordRole[] = [
  { role: 'distinct_id', name: 'distinct_id', flag: '--column distinct_id=' },
  { role: 'anon_distinct_id', name: 'anon_distinct_id', flag: '--column anon_distinct_id=' },
  { role: 'timestamp', name: 'timestamp', flag: '--column timestamp=' },
  { role: 'uuid', name: 'uuid', flag: '--column uuid=' },
];

type ObjectField = { ok: true; value: Record<string, unknown> } | { ok: false; problem: RowProblem };

function objectField(record: Record<string, unknown>, key: string): ObjectField {
  const value = Object.hasOwn(record, key) ? record[key] : undefined;
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
  const [distinctId, anonId, timestamp, uuid] = ROLES.map((role) => roleName(options, role));
  const special = new Set(['$set', '$set_once', ...[distinctId, anonId, timestamp, uuid].map((name) => name!.split('.')[0]!)]);
  for (const [key, value] of Object.entries(record)) {
    if (special.has(key)) continue;
    const target = once.has(key) ? setOnce : set;
    if (Object.hasOwn(target, key)) return problem('duplicate_property', key, `"${key}" is given twice`);
    setOwnProperty(target, key, value);
  }
  const properties: Record<string, unknown> = { $set: set };
  if (Object.keys(setOnce).length > 0) properties.$set_once = setOnce;
  const anon = valueAtPath(record, anonId!);
  if (anon !== undefined && anon !== null && anon !== '') properties.$anon_distinct_id = String(anon);
  return {
    event: '$identify',
    distinctId: valueAtPath(record, distinctId!),
    timestamp: valueAtPath(record, timestamp!) ?? options.defaultTimestampMs,
    uuid: valueAtPath(record, uuid!),
    properties,
    identity: canonicalJson({ $identify: record }),
    fieldNames: { distinctId: distinctId!, timestamp: timestamp!, uuid: uuid! },
  };
}

export const userMapper: RecordMapper = { roles: () => ROLES, map: userToCandidate };

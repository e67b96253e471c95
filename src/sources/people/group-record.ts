/**
 * A row of a groups file as a `$groupidentify` event (the name PostHog's server acts on):
 * `$group_type` from --group-type, `$group_key` from the key column, every other field in
 * `$group_set`, and the conventional distinct_id `$<type>_<key>`.
 */
import type { CandidateEvent } from '../../events/build-event.js';
import { canonicalJson } from '../../json/canonical-json.js';
import { problem, type RowProblem } from '../../events/reject-reasons.js';
import { MAX_DISTINCT_ID_CHARS, MAX_GROUP_KEY_CHARS } from '../../posthog/limits.js';
import { valueAtPath } from '../json-columns.js';
import { setOwnProperty } from '../../json/own-property.js';
import type { ReaderOptions } from '../source-item.js';
import { roleName, type RecordMapper, type RecordRole } from './record-readers.js';

function roles(options: ReaderOptions): RecordRole[] {
  return [
    { role: 'group_key', name: options.keyColumn ?? 'group_key', flag: '--key-column' },
    { role: 'timestamp', name: 'timestamp', flag: '--column timestamp=' },
    { role: 'uuid', name: 'uuid', flag: '--column uuid=' },
  ];
}

/** A group key as text (a string or a number), or the problem with it; `field` names it in messages. */
export function readGroupKey(raw: unknown, field: string): string | RowProblem {
  if (raw === undefined || raw === null || raw === '') return problem('missing_group_key', field, 'group key is missing or empty');
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'bigint') return problem('bad_value', field, 'group key must be a string or a number');
  const key = String(raw);
  if (key.length > MAX_GROUP_KEY_CHARS) return problem('group_key_too_long', field, `group key has ${key.length} characters; PostHog keeps at most ${MAX_GROUP_KEY_CHARS}`);
  return key;
}

/** The conventional distinct_id of a group update, `$<type>_<key>`, cut as PostHog cuts distinct_ids. */
export function groupDistinctId(type: string, key: string): string {
  return `$${type}_${key}`.slice(0, MAX_DISTINCT_ID_CHARS);
}

export function groupToCandidate(record: Record<string, unknown>, options: ReaderOptions): CandidateEvent | RowProblem {
  const [column, timestamp, uuid] = roles(options).map((role) => roleName(options, role)) as [string, string, string];
  const key = readGroupKey(valueAtPath(record, column), column);
  if (typeof key !== 'string') return key;
  const type = options.groupType!;
  const special = new Set([column, timestamp, uuid].map((name) => name.split('.')[0]!));
  const groupSet: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record)) {
    if (!special.has(name)) setOwnProperty(groupSet, name, value);
  }
  return {
    event: '$groupidentify',
    distinctId: groupDistinctId(type, key),
    timestamp: valueAtPath(record, timestamp) ?? options.defaultTimestampMs,
    uuid: valueAtPath(record, uuid),
    properties: { $group_type: type, $group_key: key, $group_set: groupSet },
    identity: canonicalJson({ $groupidentify: type, record }),
    fieldNames: { timestamp, uuid },
  };
}

export const groupMapper: RecordMapper = { roles, map: groupToCandidate };

/**
 * The part of status about PostHog's ingestion rules: GeoIP, ids it will not merge on, group
 * types, property types, `$set_once` nulls, re-assertions, the send order.
 */
import { sendOrder } from '../../../delivery/send-order.js';
import type { PropertyTypeConflict, RowPlace, RuleReport } from '../../../staging/rule-report.js';
import { count, plural } from '../../../util/format.js';
import { displayPath } from '../../terminal/display-path.js';
import { print } from '../../terminal/output.js';
import { wrapText } from '../../terminal/wrap-text.js';

/** Status text stays within the width of its tables. */
const WIDTH = 120;

export const at = (place: RowPlace): string => `${displayPath(place.path)}:${place.line}`;

function geoLines(rules: RuleReport): string[] {
  const { geo } = rules;
  const lines: string[] = [];
  if (geo.fromIp > 0) lines.push(`GeoIP: rows without their own $ip carry $geoip_disable, so none is located at the importing machine (${plural(geo.fromIp, 'read')})`);
  if (geo.off > 0) lines.push(`GeoIP: off for every row, --no-geoip (${plural(geo.off, 'read')})`);
  if (geo.older.length > 0) {
    const rows = geo.older.reduce((n, r) => n + r.staged, 0);
    lines.push(
      `GeoIP: ${plural(geo.older.length, 'read')} staged by an older migrate carry no $geoip_disable: PostHog would locate their ${count(rows)} rows (and their persons) at the importing machine; stage those files again into a new staging file`,
    );
  }
  return lines;
}

export function typeCounts(conflict: PropertyTypeConflict): string {
  return conflict.types.map((t) => `${t.type} ${count(t.count)}`).join(', ');
}

function ruleLines(rules: RuleReport): string[] {
  const lines = geoLines(rules);
  const { illegalIds, groupTypes, propertyConflicts } = rules;
  if (illegalIds.events > 0) {
    const ids = illegalIds.ids
      .slice(0, 3)
      .map((i) => `${JSON.stringify(i.distinctId)} (${count(i.events)}, first at ${at(i)})`)
      .join(', ');
    lines.push(`distinct_ids PostHog will not merge on: ${plural(illegalIds.events, 'event')} (each id's events become one person shared by everyone who sent it): ${ids}`);
  }
  if (groupTypes.length > 0) {
    const over = groupTypes.length > 5 ? `: more than PostHog's 5 per project, import refuses` : ' (PostHog takes 5 per project)';
    lines.push(`Group types: ${groupTypes.map((g) => g.type).join(', ')}${over}`);
  }
  if (propertyConflicts.length > 0) {
    const shown = propertyConflicts
      .slice(0, 3)
      .map((c) => `${c.name} (${typeCounts(c)})`)
      .join('; ');
    lines.push(`Properties staged with more than one type (PostHog keeps the first type it sees; a map file's "types" fixes them): ${shown}${propertyConflicts.length > 3 ? '; ...' : ''}`);
  }
  if (rules.setOnceNullsDropped > 0) lines.push(`$set_once nulls dropped: ${count(rules.setOnceNullsDropped)} (a null would hold the property as null for good)`);
  const { reassertions } = rules;
  if (reassertions.personsWithEventSets > 0 || reassertions.staged > 0) {
    lines.push(
      `Re-assertions: events of ${plural(reassertions.personsWithEventSets, 'distinct_id')} carry their own $set; ${count(reassertions.staged)} users-file updates staged to be sent again after the events (import stages them), so each person ends with the users file's values`,
    );
  }
  return lines;
}

export function printRules(rules: RuleReport): void {
  const lines = ruleLines(rules);
  if (lines.length > 0) {
    print("PostHog's ingestion rules (checked at staging; `migrate rejects --warnings` lists the rows):");
    for (const line of lines) for (const part of wrapText(`  ${line}`, WIDTH, '    ')) print(part);
  }
  const names = ['events', 'person updates', 'group updates', 're-assertions'];
  const order =
    `Send order: ${sendOrder(false)
      .map((k) => names[k])
      .join(', ')}; so every event is stored with its person's and groups' properties. ` +
    '`--people-last` sends events first, as earlier versions did: their person and group properties then stay empty.';
  for (const part of wrapText(order, WIDTH, '  ')) print(part);
}

/** What `rejects --warnings` prints: each staged row kind PostHog would alter, as `file:line code subject: message`. */
import type { StagingWarnings } from '../../../staging/staging-report.js';
import { plural } from '../../../util/format.js';
import { print, printJson } from '../../terminal/output.js';
import { at, typeCounts } from '../status/rules-output.js';

/** `rejects --warnings`: every id, property and group type PostHog would alter, with where it was first staged. */
export function presentWarnings(warnings: StagingWarnings, json: boolean): void {
  if (json) {
    printJson(warnings);
    return;
  }
  const { illegalIds, propertyConflicts, groupTypes } = warnings;
  if (illegalIds.length + propertyConflicts.length === 0 && groupTypes.length <= 5) print('No warnings.');
  for (const id of illegalIds)
    print(`${at(id)} illegal_distinct_id distinct_id: ${JSON.stringify(id.distinctId)} on ${plural(id.events, 'event')}: PostHog will not merge on it, so they all become one person`);
  for (const conflict of propertyConflicts) {
    for (const type of conflict.types)
      print(`${at(type)} property_type ${conflict.name}: first ${type.type} (${plural(type.count, 'event')} with a ${type.type}; the property is staged as ${typeCounts(conflict)})`);
  }
  if (groupTypes.length > 5) for (const g of groupTypes) print(`${at(g)} group_type ${g.type}: first used here (${plural(g.count, 'row')}); PostHog takes 5 group types per project`);
}

/** What doctor reads in the staging file (free disk is the machine's: machine/disk-facts.ts). */
import { geoReads, groupTypeUses } from '../../staging/rule-report.js';
import { stagedEventsPerDay, stagedSummary } from '../../staging/staged-facts.js';
import type { StagingStore } from '../../staging/staging-store.js';
import type { StagedFacts } from '../doctor-facts.js';

export function stagedFacts(store: StagingStore, project: string): StagedFacts {
  const rules = { groupTypes: groupTypeUses(store), olderGeoReads: geoReads(store).older };
  return { summary: stagedSummary(store, project), perDay: stagedEventsPerDay(store), rules };
}

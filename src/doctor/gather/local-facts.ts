/** What doctor reads on this machine: free disk next to the staging file, and what the staging file holds. */
import { existsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { geoReads, groupTypeUses } from '../../staging/rule-report.js';
import { stagedEventsPerDay, stagedSummary } from '../../staging/staged-facts.js';
import type { StagingStore } from '../../staging/staging-store.js';
import type { DiskFacts, StagedFacts } from '../doctor-facts.js';

/** The nearest existing directory holding `file` (the staging file may not exist yet). */
function existingDirectory(file: string): string {
  let dir = dirname(resolve(file));
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Free bytes for this user on the file system that holds (or will hold) `file`. */
export async function diskFacts(file: string): Promise<DiskFacts> {
  const path = existingDirectory(file);
  try {
    const stats = await statfs(path);
    return { path, freeBytes: stats.bavail * stats.bsize };
  } catch (error) {
    return { path, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
}

export function stagedFacts(store: StagingStore, project: string): StagedFacts {
  const rules = { groupTypes: groupTypeUses(store), olderGeoReads: geoReads(store).older };
  return { summary: stagedSummary(store, project), perDay: stagedEventsPerDay(store), rules };
}

/**
 * A static cohort's members, carried by distinct id: person uuids differ between projects, so
 * each member's first distinct id is looked up among the destination's persons (imported
 * before), and the persons found are added, 1,000 a call. Members never leave a destination
 * cohort: a copy only adds.
 */
import type { CopyContext } from './copy-context.js';

export async function sourceMembers(context: CopyContext, cohortId: number): Promise<string[]> {
  return (await context.source.cohortMembers(cohortId)).sort();
}

export async function destMembers(context: CopyContext, cohortId: number): Promise<string[]> {
  return (await context.dest.cohortMembers(cohortId)).sort();
}

/** The destination uuids of these members, and how many have no person there yet. */
export async function destUuids(context: CopyContext, distinctIds: readonly string[]): Promise<{ uuids: string[]; notFound: number }> {
  const uuids: string[] = [];
  let notFound = 0;
  for (const distinctId of distinctIds) {
    context.signal.throwIfAborted();
    const uuid = await context.dest.personUuid(distinctId);
    if (uuid === undefined) notFound += 1;
    else uuids.push(uuid);
  }
  return { uuids, notFound };
}

/** Adds to the destination cohort the members it lacks; returns warnings. */
export async function addMissingMembers(context: CopyContext, distinctIds: readonly string[], destCohortId: number): Promise<string[]> {
  const have = new Set(await destMembers(context, destCohortId));
  const { uuids, notFound } = await destUuids(
    context,
    distinctIds.filter((id) => !have.has(id)),
  );
  const warnings = notFound > 0 ? [`${notFound} of its ${distinctIds.length} members have no person in the destination yet (import the persons first, then run copy-config again)`] : [];
  if (uuids.length === 0) return warnings;
  const result = await context.dest.addPersons(destCohortId, uuids);
  return result.ok ? warnings : [...warnings, `its members could not be added: ${result.message}`];
}

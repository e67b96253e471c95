/**
 * The files an argument gave, opened the same way wherever they lie (see sources/places/): one
 * staged before and unchanged since is not opened (its identity comes from its place: a file's
 * from its bytes' ends and inode, an object's from the listing), a file named twice is opened
 * once, and a file found in a folder or by a pattern that cannot be read is told and left out
 * (the run fails once the others are staged); one named itself ends the run.
 */
import pLimit from 'p-limit';
import { InputError } from '../errors.js';
import type { Reporter } from '../reporter.js';
import type { SourceInput } from '../sources/open-input.js';
import type { Expanded, Found } from '../sources/places/expand-argument.js';
import type { Place, PlaceEntry } from '../sources/places/place.js';

/** How a place's files are opened as inputs (a zip's entries each one). */
export interface Opener<E extends PlaceEntry = PlaceEntry> {
  place: Place<E>;
  open(found: Found<E>, options: { skipEmptyArchive?: (notice: string) => void }): Promise<SourceInput[]>;
  /** Files opened at once: objects cost a request each, files are opened one by one. */
  concurrency: number;
}

/** True for a source (its recorded name, its identity now) staged before as this run would stage it: it is not opened. */
export type Unchanged = (path: string, identity: string) => boolean;

/** What the run's opening gathers, argument after argument. */
export interface Opening {
  inputs: SourceInput[];
  /** Sources staged before and unchanged since, by recorded name: not read again. */
  unchanged: string[];
  /** Files found in a folder that cannot be read, in words. */
  unreadable: string[];
  /** Recorded names opened (or skipped) already. */
  seen: Set<string>;
}

type Outcome = { inputs: SourceInput[] } | { unreadable: string } | { unchanged: string };

/** The place's entry for what was found: a name given as it is has none listed (size unknown). */
function entryOf<E extends PlaceEntry>(found: Found<E>): E {
  return found.entry ?? ({ name: found.name, sizeBytes: -1 } as E);
}

async function openOne<E extends PlaceEntry>(opener: Opener<E>, found: Found<E>, named: boolean, unchanged: Unchanged | undefined, reporter: Reporter): Promise<Outcome> {
  const entry = entryOf(found);
  const recorded = opener.place.recordedName(entry);
  const identity = await opener.place.identity(entry);
  if (identity !== undefined && unchanged?.(recorded, identity) === true) return { unchanged: recorded };
  try {
    const inputs = await opener.open(found, named ? {} : { skipEmptyArchive: (notice) => reporter.notice(notice) });
    return { inputs: inputs.map((input) => ({ ...input, identity, ...(named ? {} : { foundInFolder: true }) })) };
  } catch (error) {
    if (named || !(error instanceof InputError)) throw error;
    return { unreadable: error.message };
  }
}

/** Opens what `expanded` found into `opening`, in the order found; on a failure closes what it opened. */
export async function openFound<E extends PlaceEntry>(opener: Opener<E>, expanded: Expanded<E>, opening: Opening, unchanged: Unchanged | undefined, reporter: Reporter): Promise<void> {
  const fresh = expanded.found.filter((found) => {
    const recorded = opener.place.recordedName(entryOf(found));
    if (opening.seen.has(recorded)) return false;
    opening.seen.add(recorded);
    return true;
  });
  const limit = pLimit(opener.concurrency);
  const settled = await Promise.allSettled(fresh.map((found) => limit(() => openOne(opener, found, expanded.named, unchanged, reporter))));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(settled.flatMap((s) => (s.status === 'fulfilled' && 'inputs' in s.value ? s.value.inputs : [])).map((input) => input.close?.()));
    throw failed.reason;
  }
  for (const outcome of settled.map((s) => (s as PromiseFulfilledResult<Outcome>).value)) {
    if ('inputs' in outcome) opening.inputs.push(...outcome.inputs);
    else if ('unchanged' in outcome) opening.unchanged.push(outcome.unchanged);
    else {
      opening.unreadable.push(outcome.unreadable);
      reporter.warn(`warning: ${outcome.unreadable}; staging the folder's other files`);
    }
  }
}

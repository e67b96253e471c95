/**
 * export-source's flags that choose and change rows: --transform (a module of the user's, see
 * docs/transforms.md) and the filters without code, --only-events, --skip-events, --since and
 * --until. The transform is read here, at the edge: its content's SHA-256 is recorded with each
 * read (a changed transform on a file staged before is refused as a changed --timezone is), and
 * the module is loaded once now, so a module that cannot be used stops the run before any row.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { RowFilters } from '../../events/row-filters.js';
import type { TransformSpec } from '../../events/row-steps.js';
import { loadTransform } from '../../stage-sources/transform-module.js';
import { collect } from './common-options.js';
import { parseTimeFlag } from './time-options.js';

export interface RowSelectionFlags {
  transform?: string;
  onlyEvents?: string[];
  skipEvents?: string[];
  since?: string;
  until?: string;
}

export function rowSelectionOptions(command: Command): Command {
  return command
    .option('--transform <file.mjs>', 'an ES module whose default export gets each row as an event and returns it changed, several events (an array), or null to drop it (see docs/transforms.md)')
    .option('--only-events <names>', 'stage only these events, by source or mapped name (comma-separated, repeatable); other rows are skipped', collect, [] as string[])
    .option('--skip-events <names>', 'skip these events, by source or mapped name (comma-separated, repeatable)', collect, [] as string[])
    .option('--since <time>', 'skip events before this day (midnight UTC) or time with a zone')
    .option('--until <time>', 'skip events at or after this day (midnight UTC) or time with a zone');
}

/** What the flags make: the rules' filters and transform, and the options recorded with each read. */
export interface RowSelection {
  filters?: RowFilters;
  transform?: TransformSpec;
  /** Only the options given: a read without them records nothing new (see content-options.ts). */
  recorded: Record<string, unknown>;
}

/** A list flag's names: split at commas, trimmed, each once and sorted (a list's order means nothing). */
export function eventNames(flag: string, values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const names = [
    ...new Set(
      values
        .flatMap((v) => v.split(','))
        .map((n) => n.trim())
        .filter((n) => n !== ''),
    ),
  ].sort();
  if (names.length === 0) throw new UsageError(`${flag}: give one or more event names, separated by commas`);
  return names;
}

/** The transform module's identity: its file URL (carrying its content's SHA-256) and name. */
export function transformFile(path: string): { spec: TransformSpec; sha256: string } {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--transform ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a module' : `cannot be read (${code ?? (error as Error).message})`}`);
  }
  const hex = createHash('sha256').update(content).digest('hex');
  const url = new URL(pathToFileURL(resolve(path)));
  url.searchParams.set('sha256', hex);
  return { spec: { url: url.href, name: basename(path) }, sha256: `sha256:${hex}` };
}

function timeBounds(flags: RowSelectionFlags): Pick<RowFilters, 'sinceMs' | 'untilMs'> {
  const sinceMs = flags.since === undefined ? undefined : parseTimeFlag('--since', flags.since);
  const untilMs = flags.until === undefined ? undefined : parseTimeFlag('--until', flags.until);
  if (sinceMs !== undefined && untilMs !== undefined && untilMs <= sinceMs) {
    throw new UsageError(`--until ${flags.until} is not after --since ${flags.since}: every event would be skipped`);
  }
  return { sinceMs, untilMs };
}

export async function rowSelection(flags: RowSelectionFlags): Promise<RowSelection> {
  const onlyEvents = eventNames('--only-events', flags.onlyEvents);
  const skipEvents = eventNames('--skip-events', flags.skipEvents);
  if (onlyEvents !== undefined && skipEvents !== undefined) {
    throw new UsageError('--only-events and --skip-events: give one of them (the events to keep, or those to skip)');
  }
  const { sinceMs, untilMs } = timeBounds(flags);
  const recorded: Record<string, unknown> = {};
  const filters: RowFilters = {};
  if (onlyEvents !== undefined) filters.onlyEvents = recorded.onlyEvents = onlyEvents;
  if (skipEvents !== undefined) filters.skipEvents = recorded.skipEvents = skipEvents;
  if (sinceMs !== undefined) [filters.sinceMs, recorded.since] = [sinceMs, new Date(sinceMs).toISOString()];
  if (untilMs !== undefined) [filters.untilMs, recorded.until] = [untilMs, new Date(untilMs).toISOString()];
  const selection: RowSelection = { recorded, filters: Object.keys(filters).length > 0 ? filters : undefined };
  if (flags.transform !== undefined) {
    const { spec, sha256 } = transformFile(flags.transform);
    await loadTransform(spec);
    selection.transform = spec;
    recorded.transform = sha256;
    recorded.transformFile = flags.transform;
  }
  return selection;
}

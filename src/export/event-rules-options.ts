/**
 * Builds the event rules from command-line options: the name map file and the time zone.
 * File reading happens here, at the edge; validation is the zod schema's.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { buildNameMap, mappingFileSchema, type NameMap } from '../events/name-map.js';
import { createZoneConverter, type ZoneConverter } from '../events/time-zone.js';
import { formatZodIssues } from '../util/zod-issues.js';

/** The name map from `--map` (if given) over the built-in renames and the format's own. */
export function loadNameMap(file: string | undefined, sourceDefaults?: Readonly<Record<string, string | null>>): NameMap {
  if (file === undefined) return buildNameMap(undefined, sourceDefaults);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--map ${file}: ${code === 'ENOENT' ? 'no such file' : `not valid JSON (${(error as Error).message})`}`);
  }
  const result = mappingFileSchema.safeParse(json);
  if (!result.success) throw new UsageError(`--map ${file}: invalid mapping\n  ${formatZodIssues(result.error).join('\n  ')}`);
  return buildNameMap(result.data, sourceDefaults);
}

export function loadZone(name: string | undefined): ZoneConverter | undefined {
  if (name === undefined) return undefined;
  try {
    return createZoneConverter(name);
  } catch {
    throw new UsageError(`--timezone: "${name}" is not an IANA time zone name (e.g. Europe/Paris, America/New_York, UTC)`);
  }
}

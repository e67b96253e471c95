/**
 * Reads the event-rule options of the staging commands: the mapping file (--map) and the time
 * zone (--timezone). File reading happens here, at the edge; validation is the zod schema's.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import type { MappingFile } from '../../events/mapping-schema.js';
import { createZoneConverter } from '../../events/time-zone.js';
import { formatZodIssues } from '../../util/zod-issues.js';
import { warn } from '../terminal/output.js';

export async function loadMappingFile(file: string | undefined): Promise<MappingFile | undefined> {
  if (file === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--map ${file}: ${code === 'ENOENT' ? 'no such file' : `not valid JSON (${(error as Error).message})`}`);
  }
  const { mappingFileSchema } = await import('../../events/mapping-schema.js');
  const result = mappingFileSchema.safeParse(json);
  if (!result.success) throw new UsageError(`--map ${file}: invalid mapping\n  ${formatZodIssues(result.error).join('\n  ')}`);
  return result.data;
}

/**
 * A --timezone as given: `name` as typed, for the rules (so messages say what the user typed),
 * and its `canonical` name, recorded with the read so that two names of one zone agree.
 */
export interface ZoneChoice {
  name: string;
  canonical: string;
}

/** The zone given, or a UsageError for a name Intl does not know. */
export function checkZone(name: string | undefined): ZoneChoice | undefined {
  if (name === undefined) return undefined;
  try {
    return { name, canonical: createZoneConverter(name).canonical };
  } catch {
    throw new UsageError(`--timezone: "${name}" is not an IANA time zone name (e.g. Europe/Paris, America/New_York, UTC)`);
  }
}

/** Said once when the zone typed is another name of a zone (`CET` for Europe/Brussels), so both names are known. */
export function zoneNote(name: string | undefined): string | undefined {
  let zone: ZoneChoice | undefined;
  try {
    zone = checkZone(name);
  } catch {
    return undefined; // the command's input refuses it, with its own message
  }
  if (zone === undefined || zone.name.toLowerCase() === zone.canonical.toLowerCase()) return undefined;
  return `--timezone ${zone.name}: this machine's time zone database reads it as ${zone.canonical}, whose rules apply`;
}

/** Prints the zone note (see zoneNote) on stderr, unless --quiet. */
export function sayZoneNote(options: { timezone?: string; quiet?: boolean }): void {
  const note = zoneNote(options.timezone);
  if (note !== undefined && options.quiet !== true) warn(note);
}

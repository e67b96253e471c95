/**
 * Reads the event-rule options of the staging commands: the mapping file (--map) and the time
 * zone (--timezone). File reading happens here, at the edge; validation is the zod schema's.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import type { MappingFile } from '../../events/mapping-schema.js';
import { createZoneConverter } from '../../events/time-zone.js';
import { formatZodIssues } from '../../util/zod-issues.js';

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

/** The zone's canonical name, or a UsageError for a name Intl does not know. */
export function checkZone(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  try {
    return createZoneConverter(name).name;
  } catch {
    throw new UsageError(`--timezone: "${name}" is not an IANA time zone name (e.g. Europe/Paris, America/New_York, UTC)`);
  }
}

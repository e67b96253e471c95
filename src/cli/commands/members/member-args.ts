/** Argument rules of `migrate members`: user uuids and member levels. Pure, so a table of tests covers them. */
import { InvalidArgumentError } from 'commander';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseUserUuid(text: string): string {
  if (!UUID.test(text)) throw new InvalidArgumentError(`"${text}" is not a user uuid (e.g. 01930000-0000-7000-8000-0000000000b4)`);
  return text.toLowerCase();
}

export function parseMemberLevel(text: string): 1 | 8 {
  if (text === '1' || text === '8') return Number(text) as 1 | 8;
  throw new InvalidArgumentError('must be 1 (member) or 8 (administrator)');
}

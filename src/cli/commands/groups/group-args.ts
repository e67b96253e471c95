/** Argument rules of `migrate groups`: group type indexes. Pure, so a table of tests covers them. */
import { InvalidArgumentError } from 'commander';

/** Group type indexes run from 0 to 4 in the service. */
export function parseGroupTypeIndex(text: string): number {
  if (!/^[0-4]$/.test(text)) throw new InvalidArgumentError('must be a group type index from 0 to 4 (see `migrate group-types list`)');
  return Number(text);
}

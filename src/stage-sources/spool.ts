/**
 * Where source API answers wait between download and staging: a folder next to the staging
 * file (`<staging>.fetch`), one file per range being fetched. It is emptied when a run starts
 * (a killed run may have left files there; the staging lock says no other run uses it) and
 * removed when the run ends.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { roomFor } from '../machine/disk-estimate.js';
import { diskFacts } from '../machine/disk-facts.js';
import { PreflightError } from '../errors.js';
import { bytes } from '../util/format.js';

export function spoolDirOf(stagingPath: string): string {
  return `${stagingPath}.fetch`;
}

export async function prepareSpoolDir(stagingPath: string): Promise<string> {
  const dir = spoolDirOf(stagingPath);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return dir;
}

export async function removeSpoolDir(stagingPath: string): Promise<void> {
  await rm(spoolDirOf(stagingPath), { recursive: true, force: true });
}

/** The spool file of a range, by its name made safe for any file system. */
export function spoolFile(dir: string, rangeName: string): string {
  return join(dir, `${rangeName.replace(/[^A-Za-z0-9._-]/g, '_')}.part`);
}

/**
 * Refuses to ask for an answer the disk next to the staging file cannot hold, from what the
 * source's answers weighed so far (`expectedBytes`, 0 when nothing is known yet). Staging it is
 * checked once it arrived, as for files.
 */
export async function checkSpoolRoom(stagingPath: string, name: string, expectedBytes: number): Promise<void> {
  if (expectedBytes <= 0) return;
  const disk = await diskFacts(stagingPath);
  if ('error' in disk || roomFor(disk.freeBytes, expectedBytes) !== 'short') return;
  throw new PreflightError(`${bytes(disk.freeBytes)} free next to the staging file (${disk.path}), and the answer for ${name} should take about ${bytes(expectedBytes)}; nothing of it was fetched`, [
    'Free disk space there, or put the staging file on a larger disk (--staging <file>), and run the same command again.',
  ]);
}

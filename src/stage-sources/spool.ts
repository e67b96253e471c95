/**
 * Where source API answers wait between download and staging: a folder next to the staging
 * file (`<staging>.fetch`), one file per range being fetched. It is emptied when a run starts
 * (a killed run may have left files there; the staging lock says no other run uses it) and
 * removed when the run ends.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

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

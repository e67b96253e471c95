/** Writes the verify report next to where the user asked, whole or not at all (a temp file renamed into place). */
import { renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import type { VerifyResult } from '../verify-project.js';
import { renderVerifyReport } from './render-report.js';

/** Returns the absolute path written. */
export function writeVerifyReport(file: string, result: VerifyResult): string {
  const path = resolve(file);
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, renderVerifyReport(result));
    renameSync(temp, path);
  } catch (error) {
    throw new UsageError(`cannot write the report to ${file}: ${(error as Error).message}`);
  }
  return path;
}

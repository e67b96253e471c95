/**
 * Creating an export. PostHog renders it before it answers, which can take minutes, so the
 * request gets its own bound (`waitMs`). When no answer comes within it, the export usually
 * exists already: it is looked for among the caller's exports, newest first, before anyone
 * creates another.
 */
import { RemoteError } from '../errors.js';
import type { Clock } from '../util/clock.js';
import { findCreatedExport } from './find-created-export.js';
import type { ExportRequest, ManagementApi } from './management-api.js';
import { noAnswerError } from './management-client.js';
import type { Export } from './management-schemas.js';
import { projectCommand, type CommandTarget } from './project-command.js';

/** Default bound of the create request, in ms: ten minutes. */
export const DEFAULT_CREATE_WAIT_MS = 600_000;

/** Formats PostHog renders from a session recording only. */
export const RECORDING_FORMATS: readonly string[] = ['video/mp4', 'video/webm', 'image/gif'];

export const SOURCE_SCOPE_HINT = 'An export of an insight also needs the scope insight:read, of a dashboard dashboard:read, besides export:write.';
export const RECORDING_HINT = 'video/mp4, video/webm and image/gif export a session recording: give --context \'{"session_recording_id": "..."}\'.';

export interface CreateExportOptions {
  /** Bound of the create request, in ms. */
  waitMs: number;
  clock: Clock;
  /** The project and config, named in the command a message suggests. */
  target?: CommandTarget;
}

export interface CreatedExport {
  export: Export;
  /** Set when the request got no answer in time and the export was found among the caller's exports. */
  recoveredAfterMs?: number;
}

/** Hints for a refused create: the object's read scope (403), the recording a video needs (400). */
export function createExportHints(request: ExportRequest): Partial<Record<number, readonly string[]>> {
  const hints: Partial<Record<number, string[]>> = {};
  if (request.insight !== undefined || request.dashboard !== undefined) hints[403] = [SOURCE_SCOPE_HINT];
  if (RECORDING_FORMATS.includes(request.export_format)) hints[400] = [RECORDING_HINT];
  return hints;
}

export async function createExport(api: Pick<ManagementApi, 'createExport' | 'listExports'>, request: ExportRequest, options: CreateExportOptions): Promise<CreatedExport> {
  const sentAtMs = options.clock.now();
  const answer = await api.createExport(request, { timeoutMs: options.waitMs, hints: createExportHints(request) });
  if (answer.type === 'created') return { export: answer.export };
  if (answer.type !== 'timeout') throw noAnswerError(answer);
  const newest = await api.listExports({ limit: 100 });
  const found = findCreatedExport(newest.results, request, sentAtMs);
  if (found !== undefined) return { export: found, recoveredAfterMs: answer.afterMs };
  throw new RemoteError(`PostHog did not answer the export request within ${answer.afterMs / 1000} s, and no export matching it is listed yet`, [
    `It may still be rendering: look with \`${projectCommand('exports list', options.target)}\` in a minute before creating it again, or give the request more time with --wait-ms.`,
  ]);
}

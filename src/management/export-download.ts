/**
 * Saving an export's content: waits until the export says it has content (older PostHog
 * answers 404 for content that is not rendered yet, so asking early would look like a missing
 * export), then fetches it, still waiting through a "not ready" answer, and writes it whole.
 */
import { downloadWhenReady, waitForExport, type WaitOptions } from './export-wait.js';
import type { ManagementApi } from './management-api.js';
import type { Export } from './management-schemas.js';
import { saveFile, serverFileName } from './save-file.js';

export interface SavedExport {
  /** Absolute path written. */
  file: string;
  bytes: number;
  contentType: string;
}

/** Saves export `id` to `file`, or under the name the server suggests (in the current folder). `known` skips the first check. */
export async function downloadExport(
  api: Pick<ManagementApi, 'exportContent' | 'getExport'>,
  id: number,
  target: { file?: string; overwrite: boolean },
  wait: WaitOptions,
  known?: Export,
): Promise<SavedExport> {
  const startMs = wait.clock.now();
  const ready = known?.has_content === true ? known : await waitForExport(api, id, wait);
  const remainingMs = Math.max(0, wait.timeoutMs - (wait.clock.now() - startMs));
  const content = await downloadWhenReady(api, id, { ...wait, timeoutMs: remainingMs });
  const name = target.file ?? serverFileName(content.filename ?? ready.filename);
  return { file: saveFile(name, content.bytes, target.overwrite), bytes: content.bytes.length, contentType: content.contentType };
}

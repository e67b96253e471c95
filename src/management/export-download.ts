/** Saving an export's content: waits while it renders (within the bound), then writes it whole to a file. */
import { downloadWhenReady, type WaitOptions } from './export-wait.js';
import type { ManagementApi } from './management-api.js';
import { saveFile, serverFileName } from './save-file.js';

export interface SavedExport {
  /** Absolute path written. */
  file: string;
  bytes: number;
  contentType: string;
}

/** Saves export `id` to `file`, or under the name the server suggests (in the current folder). */
export async function downloadExport(
  api: Pick<ManagementApi, 'exportContent' | 'getExport'>,
  id: number,
  target: { file?: string; overwrite: boolean },
  wait: WaitOptions,
): Promise<SavedExport> {
  const content = await downloadWhenReady(api, id, wait);
  const name = target.file ?? serverFileName(content.filename ?? (await api.getExport(id)).filename);
  return { file: saveFile(name, content.bytes, target.overwrite), bytes: content.bytes.length, contentType: content.contentType };
}

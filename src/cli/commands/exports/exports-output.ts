/** What `exports list|create|get|download` print: exports as tables, what was saved, or JSON. */
import type { CreatedExport } from '../../../management/export-create.js';
import type { SavedExport } from '../../../management/export-download.js';
import type { Export, ExportsPage } from '../../../management/management-schemas.js';
import { plural } from '../../../util/format.js';
import { print, printJson, warn } from '../../terminal/output.js';
import { table } from '../../terminal/table.js';
import type { Paging } from './export-args.js';

function status(e: Export): string {
  if (e.exception) return 'failed';
  return e.has_content ? 'ready' : 'rendering';
}

function source(e: Export): string {
  if (e.dashboard != null) return `dashboard ${e.dashboard}`;
  if (e.insight != null) return `insight ${e.insight}`;
  return 'context';
}

export function presentExport(e: Export, json: boolean): void {
  if (json) return printJson(e);
  const rows = [
    ['id', String(e.id)],
    ['format', e.export_format],
    ['source', source(e)],
    ['status', status(e)],
    ['filename', e.filename],
    ['created', e.created_at],
    ['expires', e.expires_after ?? ''],
  ];
  if (e.exception) rows.push(['error', e.exception]);
  print(table(rows));
}

function printExportList(exports: Export[]): void {
  if (exports.length === 0) return print('No exports yet: create one with `migrate exports create`.');
  print(table([['id', 'format', 'source', 'status', 'created', 'filename'], ...exports.map((e) => [String(e.id), e.export_format, source(e), status(e), e.created_at, e.filename])]));
}

/** Every export (--all). */
export function presentAllExports(exports: Export[], json: boolean): void {
  if (json) printJson(exports);
  else printExportList(exports);
}

/** One page, and where the next one starts. */
export function presentExportsPage(page: ExportsPage, paging: Extract<Paging, { all: false }>, json: boolean): void {
  if (json) return printJson(page);
  printExportList(page.results);
  const offset = paging.offset ?? 0;
  const end = offset + page.results.length;
  if (page.results.length > 0) print(`\nExports ${offset + 1}-${end} of ${page.count}.${page.next ? ` More: --offset ${end}, or --all.` : ''}`);
}

export function presentCreated(created: CreatedExport, json: boolean): void {
  const e = created.export;
  if (created.recoveredAfterMs !== undefined) {
    warn(`PostHog did not answer the create request within ${created.recoveredAfterMs / 1000} s; found export ${e.id}, which it made (the newest of your exports matching the request).`);
  }
  if (!json) print(`Export ${e.id} created (${e.export_format}).`);
}

/** After `create --output`: the file saved (the export itself follows). */
export function presentSavedAfterCreate(saved: SavedExport, json: boolean): void {
  if (!json) print(`Saved ${saved.file} (${plural(saved.bytes, 'byte')}).`);
}

export function presentDownloaded(id: number, saved: SavedExport, json: boolean): void {
  if (json) printJson({ id, file: saved.file, bytes: saved.bytes, content_type: saved.contentType });
  else print(`Saved ${saved.file} (${plural(saved.bytes, 'byte')}, ${saved.contentType}).`);
}

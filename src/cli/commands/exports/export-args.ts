/** Argument rules of `migrate exports`: list paging and what an export is made of. Pure, so a table of tests covers them. */
import { UsageError } from '../../../errors.js';
import { EXPORT_FORMAT_NAMES, isExportFormat } from '../../../management/export-formats.js';
import type { ExportRequest } from '../../../management/management-api.js';

export type Paging = { all: true } | { all: false; limit?: number; offset?: number };

export function exportsPaging(options: { limit?: number; offset?: number; all?: boolean }): Paging {
  if (options.all && (options.limit !== undefined || options.offset !== undefined)) {
    throw new UsageError('--all reads every page; give it without --limit and --offset');
  }
  return options.all ? { all: true } : { all: false, limit: options.limit, offset: options.offset };
}

export interface ExportCreateOptions {
  dashboard?: number;
  insight?: number;
  context?: string;
  format: string;
}

function parseContext(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--context: not valid JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError('--context: must be a JSON object');
  return value as Record<string, unknown>;
}

/** The create request: exactly one of dashboard, insight or context, and a known format. */
export function exportRequest(options: ExportCreateOptions): ExportRequest {
  const given = [options.dashboard !== undefined, options.insight !== undefined, options.context !== undefined].filter(Boolean).length;
  if (given !== 1) throw new UsageError('give exactly one of --dashboard <id>, --insight <id> or --context <json>');
  if (!isExportFormat(options.format)) throw new UsageError(`--format ${options.format}: use one of ${EXPORT_FORMAT_NAMES.join(', ')}`);
  const request: ExportRequest = { export_format: options.format };
  if (options.dashboard !== undefined) request.dashboard = options.dashboard;
  if (options.insight !== undefined) request.insight = options.insight;
  if (options.context !== undefined) request.export_context = parseContext(options.context);
  return request;
}

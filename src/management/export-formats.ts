/** The export formats the client offers: PostHog's list (posthog/lists.ts), and the check of a value against it. */
import { EXPORT_FORMATS, type ExportFormat } from '../posthog/lists.js';

export type { ExportFormat } from '../posthog/lists.js';

export const EXPORT_FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormat[];

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && Object.hasOwn(EXPORT_FORMATS, value);
}

/** The media types the service can export to, and the file extension of each. */
export const EXPORT_FORMATS = {
  'image/png': 'png',
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'video/webm': 'webm',
  'video/mp4': 'mp4',
  'image/gif': 'gif',
  'application/json': 'json',
} as const;

export type ExportFormat = keyof typeof EXPORT_FORMATS;

export const EXPORT_FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormat[];

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && Object.hasOwn(EXPORT_FORMATS, value);
}

/** Export filenames as the service writes them: `export-<slug>-YYYY-MM-DD-HHMMSS.<ext>`. Pure. */
import { EXPORT_FORMATS, type ExportFormat } from '../../posthog/lists.js';

export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  return slug === '' ? 'export' : slug;
}

export function exportFilename(title: string, createdAt: Date, format: ExportFormat): string {
  const iso = createdAt.toISOString();
  const stamp = `${iso.slice(0, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
  return `export-${slugify(title)}-${stamp}.${EXPORT_FORMATS[format]}`;
}

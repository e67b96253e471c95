/**
 * Rules for the names of source files, pure so they are tested alone: which names a format
 * reads from a directory or an archive, hidden names, glob patterns, and the sort order.
 */

/** What a file name is to a format: a file to read, an archive to open, or neither. */
export type NameKind = 'file' | 'archive' | undefined;

/** An extension that accepts every gzipped name, whatever comes before `.gz` (Segment's archive). */
export const ANY_GZIP = '*.gz';

/** An extension starting with this names the files a format never reads (`!_manifest.json`). */
export const NOT_READ = '!';

/**
 * Classifies a name by its extension: `.zip` is an archive; otherwise, after an optional `.gz`,
 * it must end with one of `extensions` (lowercase, with the dot), or be gzipped when they hold
 * ANY_GZIP, and must not end with one they hold after NOT_READ. Case is ignored.
 */
export function classifyName(name: string, extensions: readonly string[]): NameKind {
  const lower = name.toLowerCase();
  if (lower.endsWith('.zip')) return 'archive';
  if (extensions.some((ext) => ext.startsWith(NOT_READ) && lower.endsWith(ext.slice(1)))) return undefined;
  if (lower.endsWith('.gz') && extensions.includes(ANY_GZIP)) return 'file';
  const base = lower.endsWith('.gz') ? lower.slice(0, -3) : lower;
  return extensions.some((ext) => base.endsWith(ext)) ? 'file' : undefined;
}

/**
 * Files that mark a folder's data as complete and hold none: the `complete` of Mixpanel's raw
 * pipelines and Amplitude's export to S3, the `_SUCCESS` of Spark and Hadoop jobs. Never read
 * from a directory or a glob, whatever extensions a format reads.
 */
export function isMarkerName(name: string): boolean {
  const base = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
  return base === 'complete' || base === '_success';
}

/** Hidden files and folders (`.DS_Store`, `.git`) and macOS archive leftovers are never read. */
export function isHiddenPath(path: string): boolean {
  return path.split(/[\\/]/).some((part) => part.startsWith('.') && part !== '.' && part !== '..') || /(^|[\\/])__MACOSX([\\/]|$)/.test(path);
}

/** True when the text has glob syntax: `*`, `?`, `[...]` or `{a,b}`. */
export function hasGlobMagic(text: string): boolean {
  return /[*?[{]/.test(text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+^$()|\\\]]/g, '\\$&');
}

/** Translates the `{a,b}` part starting at `open`; returns the regexp text and where it ends. */
function braces(segment: string, open: number): { source: string; end: number } | undefined {
  const close = segment.indexOf('}', open);
  if (close === -1) return undefined;
  const options = segment
    .slice(open + 1, close)
    .split(',')
    .map((option) => globSegmentSource(option));
  return { source: `(?:${options.join('|')})`, end: close };
}

function globSegmentSource(segment: string): string {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close === -1) source += '\\[';
      else {
        const body = segment
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = close;
      }
    } else if (c === '{') {
      const group = braces(segment, i);
      if (group === undefined) source += '\\{';
      else {
        source += group.source;
        i = group.end;
      }
    } else source += escapeRegExp(c);
  }
  return source;
}

/**
 * One path segment of a glob as a RegExp. `*` and `?` do not match a leading dot, so hidden
 * files are only matched by a pattern that names the dot itself.
 */
export function globSegmentToRegExp(segment: string): RegExp {
  const hiddenOk = segment.startsWith('.');
  return new RegExp(`^${hiddenOk ? '' : '(?!\\.)'}${globSegmentSource(segment)}$`);
}

/**
 * Splits a glob into the folder to start from (no glob syntax) and the segments to match below
 * it. `**` as a whole segment matches any number of folders.
 */
export function splitGlob(pattern: string): { base: string; segments: string[] } {
  const parts = pattern.split('/');
  const first = parts.findIndex((part) => hasGlobMagic(part));
  const fixed = parts.slice(0, first);
  const base = fixed.length === 0 ? '.' : fixed.join('/') || '/';
  return { base, segments: parts.slice(first).filter((part) => part !== '') };
}

/**
 * Orders names the way people read them: runs of digits compare as numbers, so `hour_5` comes
 * before `hour_10`. Otherwise by UTF-16 code units, never by locale, so the order is the same
 * on every machine.
 */
export function naturalCompare(a: string, b: string): number {
  const chunk = /(\d+|\D+)/g;
  const left = a.match(chunk) ?? [];
  const right = b.match(chunk) ?? [];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i]!;
    const y = right[i]!;
    if (x === y) continue;
    const digits = /^\d/.test(x) && /^\d/.test(y);
    if (digits && x.length <= 15 && y.length <= 15 && Number(x) !== Number(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return left.length - right.length || (a < b ? -1 : a > b ? 1 : 0);
}

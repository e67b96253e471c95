/**
 * Bucket addresses on the command line, pure: `s3://bucket/prefix/`, `s3://bucket/key`,
 * `s3://bucket/exports/2024-*\/*.json.gz`, and `gs://` for Google Cloud Storage (read through
 * its S3-compatible endpoint). Keys are matched with the same glob rules as file names.
 */
import { classifyName, globSegmentToRegExp, hasGlobMagic, isHiddenPath } from '../sources/input-names.js';

export type BucketScheme = 's3' | 'gs';

export interface BucketUrl {
  scheme: BucketScheme;
  bucket: string;
  /** Everything after `bucket/`, as written (may be empty). */
  path: string;
}

const BUCKET_URL = /^(s3|gs):\/\/([^/]+)(?:\/(.*))?$/s;

export function isBucketUrl(arg: string): boolean {
  return /^(s3|gs):\/\//.test(arg);
}

/** The parts of an address, or undefined when it is not one (`s3://` without a bucket). */
export function parseBucketUrl(arg: string): BucketUrl | undefined {
  const match = BUCKET_URL.exec(arg);
  if (match === null) return undefined;
  return { scheme: match[1] as BucketScheme, bucket: match[2]!, path: match[3] ?? '' };
}

/** The address of one object, as it is named in messages and recorded in the staging file. */
export function objectUrl(scheme: BucketScheme, bucket: string, key: string): string {
  return `${scheme}://${bucket}/${key}`;
}

/** What an address asks for: one key or a prefix read like a directory, or keys a pattern matches. */
export type KeyQuery = { type: 'key-or-prefix'; key: string } | { type: 'prefix'; prefix: string } | { type: 'glob'; prefix: string; segments: string[] };

export function keyQuery(path: string): KeyQuery {
  if (!hasGlobMagic(path)) return path === '' || path.endsWith('/') ? { type: 'prefix', prefix: path } : { type: 'key-or-prefix', key: path };
  const parts = path.split('/');
  const firstMagic = parts.findIndex((part) => hasGlobMagic(part));
  const literal = parts.slice(0, firstMagic);
  return { type: 'glob', prefix: literal.length === 0 ? '' : `${literal.join('/')}/`, segments: parts.slice(firstMagic) };
}

/**
 * How a pattern's segments match a key's (both below the literal prefix): the whole key (named
 * by the pattern, read whatever its name), a folder above it (the key is read as a directory's
 * file would be), or not at all. `**` matches any number of segments.
 */
function matchSegments(pattern: readonly string[], key: readonly string[]): 'whole' | 'folder' | undefined {
  if (pattern.length === 0) return key.length === 0 ? 'whole' : 'folder';
  if (key.length === 0) return pattern.every((p) => p === '**') ? 'whole' : undefined;
  const [head, ...rest] = pattern;
  if (head === '**') {
    for (let skip = 0; skip <= key.length; skip++) {
      const found = matchSegments(rest, key.slice(skip));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const matches = hasGlobMagic(head!) ? globSegmentToRegExp(head!).test(key[0]!) : head === key[0];
  return matches ? matchSegments(rest, key.slice(1)) : undefined;
}

/** Names exporters write beside their data that are never data: markers and manifests. */
export function isMarkerOrManifest(key: string): boolean {
  const name = key.slice(key.lastIndexOf('/') + 1);
  return name === 'complete' || name === '_SUCCESS' || name.endsWith('_manifest.json') || key.endsWith('/');
}

/**
 * Whether a listed key is read for the query: a directory's rule (a name the format reads, not
 * hidden, not a marker) for keys found below a prefix; any name for a key the pattern names whole.
 */
export function keySelected(query: KeyQuery, key: string, extensions: readonly string[]): boolean {
  const readable = (rest: string): boolean => !isHiddenPath(rest) && !isMarkerOrManifest(key) && classifyName(rest, extensions) !== undefined;
  switch (query.type) {
    case 'key-or-prefix':
      return key === query.key || (key.startsWith(`${query.key}/`) && readable(key.slice(query.key.length + 1)));
    case 'prefix':
      return key.startsWith(query.prefix) && readable(key.slice(query.prefix.length));
    case 'glob': {
      if (!key.startsWith(query.prefix)) return false;
      const rest = key.slice(query.prefix.length);
      const found = matchSegments(query.segments, rest.split('/'));
      if (found === 'whole') return !isMarkerOrManifest(key) && !isHiddenPath(rest);
      return found === 'folder' && readable(rest);
    }
  }
}

/** The prefix to list for a query. */
export function listPrefix(query: KeyQuery): string {
  return query.type === 'key-or-prefix' ? query.key : query.prefix;
}

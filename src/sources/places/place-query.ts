/**
 * Which of the keys listed below a folder an argument asks for, pure so a directory and a
 * bucket prefix answer alike: a folder read (the names a format reads, not hidden, no markers),
 * or a glob's segments (`**` any depth; a folder a pattern matches is read as a folder is).
 */
import { isRunManifest } from '../run-manifests.js';
import { classifyName, globSegmentToRegExp, hasGlobMagic, isHiddenPath, isMarkerName } from '../input-names.js';

/** What a pattern's segments make of a key's: the whole key, a folder above it, or nothing. */
export type SegmentMatch = 'whole' | 'folder' | undefined;

/** One segment of a key hidden (`.git`, `__MACOSX`): isHiddenPath for a single name, without splitting. */
function hiddenPart(part: string): boolean {
  return (part.startsWith('.') && part !== '.' && part !== '..') || part === '__MACOSX';
}

/** Segments compiled once: a pattern is matched against every key listed. */
const compiled = new Map<string, RegExp>();

function segmentMatches(pattern: string, part: string): boolean {
  if (!hasGlobMagic(pattern)) return pattern === part;
  let regExp = compiled.get(pattern);
  if (regExp === undefined) {
    regExp = globSegmentToRegExp(pattern);
    if (compiled.size < 1_000) compiled.set(pattern, regExp);
  }
  return regExp.test(part) && (pattern.startsWith('.') || !hiddenPart(part));
}

/** How `pattern` matches `key` (both split on `/`); `**` matches any number of segments that are not hidden. */
export function matchSegments(pattern: readonly string[], key: readonly string[]): SegmentMatch {
  if (pattern.length === 0) return key.length === 0 ? 'whole' : 'folder';
  const [head, ...rest] = pattern;
  if (head === '**') {
    for (let skip = 0; skip <= key.length; skip++) {
      if (skip > 0 && hiddenPart(key[skip - 1]!)) return undefined;
      const found = matchSegments(rest, key.slice(skip));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (key.length === 0) return undefined;
  return segmentMatches(head!, key[0]!) ? matchSegments(rest, key.slice(1)) : undefined;
}

/** True when something below the folder `dir` (split on `/`) may match `pattern`: a store listing folder by folder looks in it. */
export function mayMatchBelow(pattern: readonly string[], dir: readonly string[]): boolean {
  if (dir.length === 0) return true;
  if (pattern.length === 0) return !hiddenPart(dir[0]!);
  const [head, ...rest] = pattern;
  if (head === '**') return (!hiddenPart(dir[0]!) && mayMatchBelow(pattern, dir.slice(1))) || mayMatchBelow(rest, dir);
  return segmentMatches(head!, dir[0]!) && mayMatchBelow(rest, dir.slice(1));
}

/** What a key below a folder is to a folder read. */
export type KeyRole = 'data' | 'manifest' | 'other' | 'skipped';

/** A folder's rule: hidden files and markers skipped, manifests apart, the names the format reads (and zips) read. */
export function folderRole(key: string, extensions: readonly string[]): KeyRole {
  if (isHiddenPath(key) || isMarkerName(key)) return 'skipped';
  if (isRunManifest(key)) return 'manifest';
  return classifyName(key.slice(key.lastIndexOf('/') + 1), extensions) !== undefined ? 'data' : 'other';
}

/**
 * A pattern's rule: a key it names whole is read whatever its name (markers and manifests aside); below a folder it
 * matches, the folder's rule. A manifest it does not match is one still (kept when it lies
 * beside a file read).
 */
export function patternRole(segments: readonly string[], key: string, extensions: readonly string[]): KeyRole {
  const parts = key.split('/');
  const found = matchSegments(segments, parts);
  if (found === undefined) return isRunManifest(key) && !isHiddenPath(key) ? 'manifest' : 'skipped';
  // A trailing `**` stands for folders: a file it reaches with nothing left to match is below none of them.
  if (found === 'whole' && segments.at(-1) !== '**') return isMarkerName(key) ? 'skipped' : isRunManifest(key) ? 'manifest' : 'data';
  return folderRoleBelowMatch(segments, parts, extensions);
}

/** The folder's rule for the part of a key below the folder the pattern matched: the base itself for a trailing `**`. */
function folderRoleBelowMatch(segments: readonly string[], parts: readonly string[], extensions: readonly string[]): KeyRole {
  for (let depth = 0; depth < parts.length; depth++) {
    if (matchSegments(segments, parts.slice(0, depth)) === 'whole') return folderRole(parts.slice(depth).join('/'), extensions);
  }
  return 'skipped';
}

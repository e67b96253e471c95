/**
 * From the bytes received to the JSON text: gzip is recognised by its magic bytes (or the
 * `compression` query / `Content-Encoding`), and the size limit applies to the decompressed body.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { captureProblem, type CaptureProblem } from './capture-problem.js';

const gunzipAsync = promisify(gunzip);
const GZIP_MAGIC = [0x1f, 0x8b, 0x08];

/** PostHog's body limit for /batch/: 20 MB. */
export const DEFAULT_MAX_BODY_BYTES = 20 * 1024 * 1024;

export function looksGzipped(raw: Buffer): boolean {
  return raw.length >= 3 && GZIP_MAGIC.every((byte, i) => raw[i] === byte);
}

function tooLarge(limit: number): CaptureProblem {
  return captureProblem(413, 'payload_too_large', `request body exceeds the limit of ${limit} bytes`);
}

/** The body as text, or the problem: 413 over `maxBytes` decompressed, 400 for bad gzip or UTF-8. */
export async function decodeBody(raw: Buffer, gzipHinted: boolean, maxBytes: number): Promise<{ text: string } | CaptureProblem> {
  let plain = raw;
  if (looksGzipped(raw) || (gzipHinted && raw.length > 0)) {
    try {
      plain = await gunzipAsync(raw, { maxOutputLength: maxBytes + 1 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) return tooLarge(maxBytes);
      return captureProblem(400, 'invalid_payload', 'failed to decode request: invalid gzip data');
    }
  }
  if (plain.length > maxBytes) return tooLarge(maxBytes);
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(plain) };
  } catch {
    return captureProblem(400, 'invalid_payload', 'failed to decode request: invalid body encoding');
  }
}

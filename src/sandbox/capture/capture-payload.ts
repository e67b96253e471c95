/**
 * From a body (already inflated when it was gzip) to the JSON text of the request, through
 * the other forms PostHog's SDKs send: the whole body in base64; a form (`data=...`, possibly
 * base64, `compression=` inside it) when the content type says so; `data` in the query;
 * lz64 (LZ-string in base64); gzip inside base64. The text must be valid UTF-8 (a byte order
 * mark is kept, and JSON then refuses it, as PostHog's parser does).
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { captureProblem, type CaptureProblem } from './capture-problem.js';
import type { JsonPayload } from './capture-parse.js';
import { inflateAll, looksGzipped, tooLarge } from './capture-body.js';
import { decompressLz64 } from './lz-string.js';

export type Compression = 'gzip' | 'lz64' | 'base64' | undefined;

export interface PayloadSource {
  body: Buffer;
  /** The body was gzip and is inflated already. */
  inflated: boolean;
  query: URLSearchParams;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  path: string;
  maxBodyBytes: number;
  /**
   * Count-only mode: UTF-8 bytes are given as text one char per byte (latin1), with `latin1`
   * set on the payload. Decoding was a fifth of count-only's work; checkCapture decodes the
   * few strings whose content it judges (see there).
   */
  latin1Text?: boolean;
}

const FORM_TYPE = 'application/x-www-form-urlencoded';
const FORM_KEYS = ['data=', '_=', 'ip=', 'compression='];
// Paths where capture also unwraps a payload that is still base64 after decompression.
const LEGACY_PATHS = /^\/(e|capture|track|engage)\/?$/;

const decodeError = (detail: string): CaptureProblem => captureProblem(400, 'invalid_payload', `failed to decode request: ${detail}`);

export function compressionOf(value: string | null | undefined): Compression {
  switch (value?.toLowerCase()) {
    case 'gzip':
    case 'gzip-js':
      return 'gzip';
    case 'lz64':
    case 'lz-string':
      return 'lz64';
    case 'base64':
    case 'b64':
      return 'base64';
    default:
      return undefined;
  }
}

function looksLikeForm(payload: Buffer): boolean {
  const head = payload.subarray(0, 128).toString('latin1');
  return FORM_KEYS.some((key) => head.startsWith(key) || head.includes(`&${key}`));
}

/** Capture's quick test: the first 128 bytes in the base64 alphabet and a length of whole quads. */
function looksLikeBase64(payload: Buffer | string, spacesAllowed = false): boolean {
  if (payload.length === 0 || payload.length % 4 !== 0) return false;
  const head = typeof payload === 'string' ? payload.slice(0, 128) : payload.subarray(0, 128).toString('latin1');
  return (spacesAllowed ? /^[A-Za-z0-9+/= ]*$/ : /^[A-Za-z0-9+/=]*$/).test(head);
}

function fromBase64(text: string): Buffer | undefined {
  return /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
}

/** The bytes' JSON payload, when they are UTF-8 (strict): decoded, or one char per byte when asked. */
function textPayload(bytes: Buffer, latin1Text: boolean | undefined): JsonPayload | undefined {
  if (latin1Text && !isAscii(bytes)) return isUtf8(bytes) ? { bytes, text: bytes.toString('latin1'), latin1: true } : undefined;
  const text = utf8Text(bytes);
  return text === undefined ? undefined : { bytes, text };
}

/** Strict UTF-8, the byte order mark kept. */
export function utf8Text(bytes: Buffer): string | undefined {
  if (isAscii(bytes)) return bytes.toString('latin1');
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

interface Unpacked {
  payload: Buffer;
  formCompression?: Compression;
}

/** The bytes that hold the events, and a compression named in the form, if any. */
function unpack(source: PayloadSource): Unpacked | CaptureProblem {
  const fromQuery = source.query.get('data');
  let payload = fromQuery ? Buffer.from(fromQuery, 'utf8') : source.body;
  if (payload.length === 0) return decodeError('empty payload');
  if (!looksLikeForm(payload) && looksLikeBase64(payload)) payload = fromBase64(payload.toString('latin1')) ?? payload;
  if (source.contentType !== FORM_TYPE) return { payload };
  if (!looksLikeForm(payload)) return decodeError('expected form data in POST request payload');
  const form = new URLSearchParams(payload.toString('utf8'));
  let data = form.get('data');
  // A base64 value lost its '+' to the form decoding, which read them as spaces.
  if (data !== null && looksLikeBase64(data, true)) data = data.replaceAll(' ', '+');
  return { payload: data === null ? payload : Buffer.from(data, 'utf8'), formCompression: compressionOf(form.get('compression')) };
}

function decompress(payload: Buffer, compression: Compression, source: PayloadSource): JsonPayload | CaptureProblem {
  const limit = source.maxBodyBytes;
  if (!source.inflated && (compression === 'gzip' || looksGzipped(payload))) {
    const inflated = inflateAll(payload, limit);
    if ('problem' in inflated) return inflated;
    return textPayload(inflated, source.latin1Text) ?? decodeError('invalid gzip data');
  }
  if (compression === 'lz64') {
    const result = decompressLz64(payload.toString('latin1'), limit);
    if ('error' in result) return result.error === 'too_large' ? tooLarge(limit) : decodeError('invalid lz64 data');
    if (!isWellFormed(result.text)) return decodeError('invalid UTF-16 in lz64 data');
    return { bytes: Buffer.from(result.text, 'utf8'), text: result.text };
  }
  return textPayload(payload, source.latin1Text) ?? decodeError('invalid UTF-8 in request payload');
}

function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** The request's JSON text and its UTF-8 bytes, or why it cannot be read. */
export function extractPayload(source: PayloadSource): JsonPayload | CaptureProblem {
  const unpacked = unpack(source);
  if ('problem' in unpacked) return unpacked;
  const compression = compressionOf(source.query.get('compression')) ?? unpacked.formCompression ?? compressionOf(source.contentEncoding);
  let json = decompress(unpacked.payload, compression, source);
  if ('problem' in json) return json;
  if (LEGACY_PATHS.test(source.path) && looksLikeBase64(json.text)) {
    const unwrapped = fromBase64(json.text);
    const text = unwrapped === undefined ? undefined : utf8Text(unwrapped);
    if (unwrapped !== undefined && text !== undefined) json = { bytes: unwrapped, text };
  }
  return json.bytes.length > source.maxBodyBytes ? tooLarge(source.maxBodyBytes) : json;
}

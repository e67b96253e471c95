/** Request bodies of the management API: one JSON object, or the service's 400. */
import type { SandboxRequest, SandboxResponse } from '../router.js';
import { apiError, validationError } from './api-errors.js';

export type BodyResult = { ok: true; value: Record<string, unknown> } | { ok: false; response: SandboxResponse };

export async function readJsonObject(request: SandboxRequest): Promise<BodyResult> {
  const text = (await request.body()).toString('utf8');
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, response: apiError(400, 'validation_error', 'parse_error', `JSON parse error - ${(error as Error).message}`) };
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
  return { ok: false, response: validationError('invalid_input', 'Invalid data. Expected a dictionary.', null) };
}

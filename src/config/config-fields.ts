/** Field types the config's schemas share: a base URL under the host rules, an environment variable's name. */
import { z } from 'zod';
import { normaliseBaseUrl } from './hosts.js';

export const baseUrlField = z.string().transform((text, ctx) => {
  const result = normaliseBaseUrl(text);
  if (typeof result === 'string') return result;
  ctx.addIssue({ code: 'custom', message: result.error });
  return z.NEVER;
});

export const envNameField = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** A choice whose case cannot matter (`"EU"` is `eu`): matched whatever its case, kept in lower case. */
export function caselessEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess((value) => (typeof value === 'string' ? value.toLowerCase() : value), z.enum(values));
}

/**
 * Keeps keys out of everything we print. Known secret values (the keys a command resolved) and
 * anything shaped like a PostHog key are replaced, in messages, logs and JSON output alike.
 */
const KEY_SHAPE = /\b(ph[cx])_[A-Za-z0-9_-]{6,}/g;
const known = new Set<string>();

/** Registers a secret value so every later `redact` hides it. */
export function registerSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= 4) known.add(value);
}

/** Forgets every registered secret: each run of the program starts with only its own. */
export function forgetSecrets(): void {
  known.clear();
}

export function redact(text: string): string {
  let out = text;
  for (const secret of known) out = out.split(secret).join('[redacted]');
  return out.replace(KEY_SHAPE, '$1_[redacted]');
}

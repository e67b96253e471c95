/**
 * What one HTTP exchange came to, as a plain value. Kept apart from the client so pure code
 * (the delivery classifier) can use the type without importing the module that imports undici.
 */
export type HttpOutcome =
  | { type: 'response'; status: number; headers: Record<string, string>; body: Buffer }
  | { type: 'network-error'; code: string; message: string }
  | { type: 'timeout'; afterMs: number }
  | { type: 'aborted' };

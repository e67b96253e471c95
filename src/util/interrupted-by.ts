/** What interrupted a run, for messages: the signal's name when the shell gave it as the abort reason. */
export function interruptedBy(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'a signal';
}

/** `$referring_domain` from an absolute `$referrer`, as PostHog's web SDK sends the pair. */
import { setIfAbsent, type Properties } from './vendor-values.js';

export function addReferringDomain(properties: Properties): void {
  const referrer = properties.$referrer;
  if (typeof referrer !== 'string' || !/^https?:\/\//i.test(referrer)) return;
  try {
    setIfAbsent(properties, '$referring_domain', new URL(referrer).host);
  } catch {
    // Not a URL after all: nothing to add.
  }
}

/** The source APIs, by the name `--from` takes. */
import { AMPLITUDE_EXPORT } from './amplitude-export-api.js';
import type { ApiSource, ApiSourceName } from './api-source.js';
import { MIXPANEL_EXPORT } from './mixpanel-export-api.js';
import { POSTHOG_QUERY } from './posthog-query-api.js';

export type { ApiSource, ApiSourceName } from './api-source.js';

export const API_SOURCES: Readonly<Record<ApiSourceName, ApiSource>> = {
  'mixpanel-api': MIXPANEL_EXPORT,
  'amplitude-api': AMPLITUDE_EXPORT,
  'posthog-api': POSTHOG_QUERY,
};

export function isApiSource(name: string): name is ApiSourceName {
  return Object.hasOwn(API_SOURCES, name);
}

export function findApiSource(name: ApiSourceName): ApiSource {
  return API_SOURCES[name];
}

export function apiSourceNames(): ApiSourceName[] {
  return Object.keys(API_SOURCES) as ApiSourceName[];
}

/**
 * The kinds of configuration object `copy-config` moves, in the order their references need
 * (what an object points at is copied before it), with the API resource of each and the fields
 * that make up its content: a whitelist of what PostHog lets a client write, so fields the
 * server computes (ids, counts, who and when) never enter a copy or a content hash.
 */
export const COPY_KINDS = ['actions', 'cohorts', 'flags', 'insights', 'dashboards', 'annotations', 'experiments', 'surveys'] as const;
export type CopyKind = (typeof COPY_KINDS)[number];

export const KIND_RESOURCE: Readonly<Record<CopyKind, string>> = {
  actions: 'actions',
  cohorts: 'cohorts',
  flags: 'feature_flags',
  insights: 'insights',
  dashboards: 'dashboards',
  annotations: 'annotations',
  experiments: 'experiments',
  surveys: 'surveys',
};

/** One object of a kind, for messages: `action 12 "Signed up"`. */
export const KIND_NOUN: Readonly<Record<CopyKind, string>> = {
  actions: 'action',
  cohorts: 'cohort',
  flags: 'flag',
  insights: 'insight',
  dashboards: 'dashboard',
  annotations: 'annotation',
  experiments: 'experiment',
  surveys: 'survey',
};

export const WRITABLE_FIELDS: Readonly<Record<CopyKind, readonly string[]>> = {
  actions: ['name', 'description', 'tags', 'post_to_slack', 'slack_message_format', 'steps', 'pinned_at'],
  cohorts: ['name', 'description', 'groups', 'filters', 'query', 'is_static', 'cohort_type'],
  flags: [
    'name',
    'key',
    'filters',
    'active',
    'ensure_experience_continuity',
    'rollback_conditions',
    'tags',
    'evaluation_tags',
    'is_remote_configuration',
    'evaluation_runtime',
    'bucketing_identifier',
    // Without it PostHog stores the payloads (read decrypted with a personal key) in plain text.
    'has_encrypted_payloads',
  ],
  insights: ['name', 'derived_name', 'query', 'filters', 'order', 'description', 'tags', 'favorited', 'saved'],
  dashboards: ['name', 'description', 'pinned', 'filters', 'variables', 'breakdown_colors', 'tags', 'restriction_level'],
  annotations: ['content', 'date_marker', 'creation_type', 'dashboard_item', 'dashboard_id', 'scope', 'emoji', 'is_emoji', 'recording_id', 'tags'],
  experiments: [
    'name',
    'description',
    'start_date',
    'end_date',
    'feature_flag_key',
    'parameters',
    'secondary_metrics',
    'filters',
    'archived',
    'type',
    'exposure_criteria',
    'metrics',
    'metrics_secondary',
    'stats_config',
    'scheduling_config',
    'allow_unknown_events',
    'conclusion',
    'conclusion_comment',
    'primary_metrics_ordered_uuids',
    'secondary_metrics_ordered_uuids',
    'only_count_matured_users',
  ],
  // start_date and end_date are left behind on purpose: a copied survey arrives unlaunched.
  surveys: [
    'name',
    'description',
    'type',
    'schedule',
    'questions',
    'conditions',
    'appearance',
    'archived',
    'responses_limit',
    'iteration_count',
    'iteration_frequency_days',
    'translations',
    'enable_partial_responses',
    'response_sampling_start_date',
    'response_sampling_interval_type',
    'response_sampling_interval',
    'response_sampling_limit',
    'response_sampling_daily_limits',
    'linked_insight_id',
  ],
};

/** Flags PostHog makes for its own features (a survey's or a product tour's targeting): never copied as flags. */
export const SELF_MADE_FLAG_PREFIXES: readonly string[] = ['survey-targeting-', 'product-tour-targeting-'];

export function pickFields(object: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (object[field] !== undefined) picked[field] = object[field];
  return picked;
}

/** Parses `--only actions,cohorts,...`; unknown names are returned for the usage error. */
export function parseKinds(list: string | undefined): { kinds: CopyKind[]; unknown: string[] } {
  if (list === undefined) return { kinds: [...COPY_KINDS], unknown: [] };
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const aliases: Record<string, CopyKind> = { feature_flags: 'flags', 'feature-flags': 'flags' };
  const wanted = new Set<CopyKind>();
  const unknown: string[] = [];
  for (const name of names) {
    const kind = (COPY_KINDS as readonly string[]).includes(name) ? (name as CopyKind) : aliases[name];
    if (kind === undefined) unknown.push(name);
    else wanted.add(kind);
  }
  return { kinds: COPY_KINDS.filter((kind) => wanted.has(kind)), unknown };
}

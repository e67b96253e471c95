/**
 * The import boundaries of CONTRIBUTING.md's map, checked by `npm run boundaries` (part of
 * `npm test`). Each rule names the layer it keeps; a new folder goes into the layer it belongs to.
 */
/** The shell: flags, wording, terminal, signals. */
const SHELL = '^src/(cli/|main\\.ts$)';
/** The use cases the shell calls. */
const USE_CASES = '^src/(stage-sources|passes|import|verify|doctor|copy-config)/';
/** The floors every use case stands on (shared facts and the doors to outside systems). */
const SHARED_FLOORS = '^src/(posthog|json|machine|sqlite|util)/';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import cycle, at any length.', from: {}, to: { circular: true } },
    {
      name: 'shell-on-top',
      severity: 'error',
      comment: 'Nothing outside the shell imports it (src/cli/ and src/main.ts).',
      from: { path: '^src/', pathNot: SHELL },
      to: { path: SHELL },
    },
    {
      name: 'use-cases-above-core',
      severity: 'error',
      comment: 'The core (events, reading, vendors, staging, delivery, http, management, config, the floors) never imports a use case.',
      from: { path: '^src/', pathNot: [SHELL, USE_CASES, '^src/sandbox/'] },
      to: { path: USE_CASES },
    },
    {
      name: 'floors-import-nothing-above',
      severity: 'error',
      comment: 'PostHog facts, exact JSON, machine facts and the doors import only each other, errors.ts and node.',
      from: { path: SHARED_FLOORS },
      to: { path: '^src/', pathNot: [SHARED_FLOORS, '^src/errors\\.ts$'] },
    },
    {
      name: 'sandbox-one-entry',
      severity: 'error',
      comment: 'The sandbox is reached only through src/sandbox/index.ts, and only by the sandbox command (tests may reach inside).',
      from: { path: '^src/', pathNot: ['^src/sandbox/', '^src/cli/commands/sandbox/'] },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'sandbox-through-index',
      severity: 'error',
      comment: 'The sandbox command imports the sandbox through its index only.',
      from: { path: '^src/cli/commands/sandbox/' },
      to: { path: '^src/sandbox/', pathNot: '^src/sandbox/index\\.ts$' },
    },
    {
      name: 'sandbox-reaches-no-client-module',
      severity: 'error',
      comment: "The sandbox checks the client: it shares PostHog's facts (src/posthog) and the floors, never the client's rules.",
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: ['^src/sandbox/', SHARED_FLOORS, '^src/errors\\.ts$'] },
    },
    {
      name: 'only-sqlite-door-imports-better-sqlite3',
      severity: 'error',
      from: { pathNot: '^src/sqlite/database\\.ts$' },
      to: { path: 'node_modules/(@types/)?better-sqlite3/' },
    },
    {
      name: 'only-http-client-imports-undici',
      severity: 'error',
      from: { pathNot: '^src/http/http-client\\.ts$' },
      to: { path: 'node_modules/undici/' },
    },
    {
      name: 'only-terminal-loads-ora',
      severity: 'error',
      from: { pathNot: '^src/cli/terminal/' },
      to: { path: 'node_modules/ora/' },
    },
    {
      name: 'only-s3-client-imports-the-aws-sdk',
      severity: 'error',
      from: { pathNot: '^src/buckets/s3-client\\.ts$' },
      to: { path: 'node_modules/@aws-sdk/' },
    },
    {
      name: 'only-parquet-file-imports-hyparquet',
      severity: 'error',
      from: { pathNot: '^src/sources/columnar/parquet-(file|pages|page-stream|slices)\\.ts$' },
      to: { path: 'node_modules/hyparquet' },
    },
    {
      name: 'only-avro-file-imports-avsc',
      severity: 'error',
      from: { pathNot: '^src/sources/columnar/avro-file\\.ts$' },
      to: { path: 'node_modules/avsc/' },
    },
    {
      name: 'only-avro-container-imports-hysnappy',
      severity: 'error',
      from: { pathNot: '^src/sources/columnar/avro-container\\.ts$' },
      to: { path: 'node_modules/hysnappy/' },
    },
    {
      name: 'pure-core-no-io',
      severity: 'error',
      comment: 'PostHog facts and the event rules import no fs, undici or SQLite.',
      from: { path: '^src/(posthog|events)/' },
      to: { path: ['^(node:)?fs(/promises)?$', 'node_modules/(undici|(@types/)?better-sqlite3)/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: ['^src/', '^(node:)?fs(/promises)?$', 'node_modules/((@types/)?better-sqlite3|undici|ora|@aws-sdk/[^/]+|hyparquet[^/]*|avsc|hysnappy)/'],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

/**
 * The sandbox's one entry: the local PostHog-compatible server and what the `sandbox` command
 * shows about it. Nothing in src/ but that command imports the sandbox, and the sandbox imports
 * no module of the client, only PostHog's facts (src/posthog) and the floors (json, sqlite, util):
 * it is the client's check, so it must not share the client's judgement. Checked by
 * `npm run boundaries`.
 */
export { startSandbox, type RunningSandbox, type SandboxOptions } from './sandbox-server.js';
export { describeFaults, type CaptureFaults } from './capture/capture-faults.js';
export { sandboxPersonalKeys } from './api/management-seed.js';
export { listSandboxProjects, type SandboxProject } from './sandbox-projects.js';

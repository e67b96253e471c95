/**
 * Fixed identities of the sandbox's seeded organization and projects, shared by the capture
 * side (which resolves project tokens) and the management API (which lists projects).
 */
export const SANDBOX_ORGANIZATION_ID = '01930000-0000-7000-8000-00000000000a';
export const SANDBOX_TEST_PROJECT_ID = 1;
export const SANDBOX_PRODUCTION_PROJECT_ID = 2;

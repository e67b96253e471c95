/**
 * Runs before each test file. Test files share a worker's loaded modules (vitest.config.ts:
 * isolate false), so what a module keeps for the process is reset here: the secrets an earlier
 * file's runs registered for redaction would otherwise redact this file's own test values. Both
 * copies are reset: the sources the unit tests load, and the built program the CLI tests run.
 */
import { forgetSecrets } from '../../src/util/redact.js';

forgetSecrets();
const built = (await import(new URL('../../dist/util/redact.js', import.meta.url).href)) as { forgetSecrets: () => void };
built.forgetSecrets();

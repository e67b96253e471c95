/**
 * The `--map` file's schema. Kept apart from the name map itself so that staging loads zod
 * only when a mapping file is given.
 */
import { z } from 'zod';

/** A rename target, or null to drop (events: skip the row; properties: remove the key). */
const target = z.string().min(1, 'must not be empty').nullable();

export const mappingFileSchema = z
  .object({
    /** When true the built-in event renames are not used. Default false (extend them). */
    replaceDefaults: z.boolean().default(false),
    events: z.record(z.string(), target).default({}),
    properties: z.record(z.string(), target).default({}),
    /**
     * Types forced on top-level properties at staging (by their staged name): PostHog fixes a
     * property's type from the first value it sees. Optional without a default, so the
     * fingerprint of a mapping file without it stays what it was.
     */
    types: z.record(z.string().min(1, 'must not be empty'), z.enum(['string', 'number', 'boolean'])).optional(),
  })
  .strict();

export type MappingFile = z.infer<typeof mappingFileSchema>;

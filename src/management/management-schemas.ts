/**
 * The management API's responses as zod schemas, the single source of their types. Objects are
 * loose: the service sends many more fields than we read, and `--json` passes them through.
 */
import { z } from 'zod';

export const apiErrorBodySchema = z.looseObject({
  type: z.string(),
  code: z.string(),
  detail: z.string(),
  attr: z.string().nullish(),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;

export function offsetPageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullish(), results: z.array(item) });
}

export function cursorPageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({ next: z.string().nullable(), previous: z.string().nullish(), results: z.array(item) });
}

export const projectSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  organization: z.string(),
  timezone: z.string().nullish(),
});
export type Project = z.infer<typeof projectSchema>;

export const groupTypeSchema = z.looseObject({
  group_type: z.string(),
  group_type_index: z.number().int(),
  name_singular: z.string().nullish(),
  name_plural: z.string().nullish(),
});
export type GroupType = z.infer<typeof groupTypeSchema>;

export const exportSchema = z.looseObject({
  id: z.number().int(),
  dashboard: z.number().int().nullish(),
  insight: z.number().int().nullish(),
  export_format: z.string(),
  created_at: z.string(),
  has_content: z.boolean(),
  filename: z.string(),
  expires_after: z.string().nullish(),
  exception: z.string().nullish(),
});
export type Export = z.infer<typeof exportSchema>;

export const groupSchema = z.looseObject({
  group_type_index: z.number().int(),
  group_key: z.string(),
  group_properties: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type Group = z.infer<typeof groupSchema>;

export const projectsPageSchema = offsetPageSchema(projectSchema);
export const exportsPageSchema = offsetPageSchema(exportSchema);
export type ExportsPage = z.infer<typeof exportsPageSchema>;
export const groupsPageSchema = cursorPageSchema(groupSchema);
export type GroupsPage = z.infer<typeof groupsPageSchema>;
export const groupTypesSchema = z.array(groupTypeSchema);

/**
 * Answers of the two members APIs as zod schemas (loose: the service sends more than we read).
 * Explicit members: `/explicit_members/`. Access control: `users_with_access`, the control a
 * PUT answers, and the organization's memberships (whose ids access control takes).
 */
import { z } from 'zod';
import { offsetPageSchema } from '../management-schemas.js';

const userSchema = z.looseObject({
  uuid: z.string(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  email: z.string().nullish(),
});
export type MemberUser = z.infer<typeof userSchema>;

export const explicitMemberSchema = z.looseObject({
  id: z.string(),
  level: z.number().int(),
  parent_level: z.number().int().nullish(),
  parent_membership_id: z.string().nullish(),
  joined_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  user: userSchema,
  effective_level: z.number().int(),
});
export type ExplicitMember = z.infer<typeof explicitMemberSchema>;
export const explicitMembersSchema = z.array(explicitMemberSchema);

export const userAccessSchema = z.looseObject({
  user_id: z.string(),
  access_level: z.string(),
  access_source: z.string(),
  organization_membership_id: z.string().nullish(),
  organization_membership_level: z.string().nullish(),
});
export type UserAccess = z.infer<typeof userAccessSchema>;
export const usersWithAccessSchema = z.looseObject({ users: z.array(userAccessSchema), total_count: z.number().int().nullish() });

export const accessControlSchema = z.looseObject({
  access_level: z.string().nullable(),
  organization_member: z.string().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type AccessControl = z.infer<typeof accessControlSchema>;

export const organizationMemberSchema = z.looseObject({
  id: z.string(),
  user: userSchema,
  level: z.number().int(),
  joined_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type OrganizationMember = z.infer<typeof organizationMemberSchema>;
export const organizationMembersPageSchema = offsetPageSchema(organizationMemberSchema);

/** Tenant membership roles; mirrors the Prisma `Role` enum without importing the database layer. */
export const ROLES = ["requester", "reviewer", "auditor", "admin"] as const;
export type Role = (typeof ROLES)[number];

/**
 * Roles a stored policy document may name as approvers (auditors are read-only). Saving a policy
 * is stricter: only roles holding the decide permission (DECIDING_ROLES in lib/auth/permissions.ts).
 */
export const APPROVER_ROLES = ["requester", "reviewer", "admin"] as const satisfies readonly Role[];

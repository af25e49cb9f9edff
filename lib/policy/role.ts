/** Tenant membership roles; mirrors the Prisma `Role` enum without importing the database layer. */
export const ROLES = ["requester", "reviewer", "auditor", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** Roles a policy may name as approvers. Auditors are read-only (SPEC "Who uses it"). */
export const APPROVER_ROLES = ["requester", "reviewer", "admin"] as const satisfies readonly Role[];

import type { Role } from "@/lib/generated/prisma/enums";

export type Permission =
  | "tasks:use"
  | "queue:review"
  | "actions:read"
  | "actions:decide"
  | "audit:read"
  | "audit:export"
  | "admin:manage";

/** Permissions as data: what each role may do in its tenant. */
export const ROLE_PERMISSIONS = {
  requester: ["tasks:use", "actions:read"],
  reviewer: ["queue:review", "actions:read", "actions:decide"],
  auditor: ["audit:read", "audit:export", "actions:read"],
  admin: ["admin:manage", "audit:read", "audit:export", "actions:read"],
} as const satisfies Record<Role, readonly Permission[]>;

/** Tenant membership roles: the Prisma `Role` enum, as a list the policy schema can name. */
export const ALL_ROLES = ["requester", "reviewer", "auditor", "admin"] as const satisfies readonly Role[];

/** Roles that may only look: every permission they hold reads or exports. */
export const READ_ONLY_ROLES: readonly Role[] = ALL_ROLES.filter((role) =>
  (ROLE_PERMISSIONS[role] as readonly Permission[]).every((p) => p.endsWith(":read") || p.endsWith(":export")));

/** The roles whose members may hold a permission: derived from the one table above. */
export function rolesWith(permission: Permission): Role[] {
  return ALL_ROLES.filter((role) => (ROLE_PERMISSIONS[role] as readonly Permission[]).includes(permission));
}

/**
 * Who may approve or reject an action: the roles holding `actions:decide`. A policy may name only
 * these as approvers (checked when it is saved), and votes and the execution claim count only
 * members holding one of them (lib/db/statements/actions/approval-rules.ts).
 */
export const DECIDING_ROLES: readonly Role[] = rolesWith("actions:decide");

export function permissionsFor(roles: readonly Role[]): Set<Permission> {
  return new Set(roles.flatMap((role) => ROLE_PERMISSIONS[role]));
}

export function hasPermission(roles: readonly Role[], permission: Permission): boolean {
  return permissionsFor(roles).has(permission);
}

/** The console's sections, each shown only to the roles that may use it. */
export const NAVIGATION = [
  { href: "/tasks", label: "Tasks", permission: "tasks:use" },
  { href: "/queue", label: "Review queue", permission: "queue:review" },
  { href: "/audit", label: "Audit", permission: "audit:read" },
  { href: "/admin", label: "Admin", permission: "admin:manage" },
] as const satisfies ReadonlyArray<{ href: string; label: string; permission: Permission }>;

export function navigationFor(roles: readonly Role[]) {
  const granted = permissionsFor(roles);
  return NAVIGATION.filter((item) => granted.has(item.permission));
}

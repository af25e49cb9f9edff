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

export const ALL_ROLES = ["requester", "reviewer", "auditor", "admin"] as const satisfies readonly Role[];

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

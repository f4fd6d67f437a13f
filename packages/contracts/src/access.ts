/**
 * Who needs no membership (docs/adr/0007): API keys and system callers are machine principals of
 * the whole tenant environment, and users holding system:admin administer every project. Every
 * other user reaches a project only as one of its members. The one definition of the rule: the
 * projects service applies it on every project route and in GetProjectAccess (ADR 0060), and a
 * service that would ask GetProjectAccess may apply it first from the signed caller context, which
 * is all the rule reads, and skip the call (ADR 0119).
 */
export function actsTenantWide(caller: { principalType: string; permissions: readonly string[] }): boolean {
  return caller.principalType === 'api_key' || caller.principalType === 'system' || caller.permissions.includes('system:admin');
}

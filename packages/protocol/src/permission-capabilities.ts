/**
 * What the permission gate asks the user about, per origin ("may this site be clicked on,
 * navigated, sent requests..."). A grant is stored as `"<capability> <origin>"`; the add-on's
 * settings page lists and revokes grants by these names, so a name read back from storage that is
 * not in this list is ignored, never trusted.
 */
export const PERMISSION_CAPABILITIES = [
  "interact",
  "navigate",
  "network",
  "download",
  "upload",
  "execute_js",
  "clipboard_read",
] as const;

export type PermissionCapability = (typeof PERMISSION_CAPABILITIES)[number];

export function isPermissionCapability(value: unknown): value is PermissionCapability {
  return (PERMISSION_CAPABILITIES as readonly unknown[]).includes(value);
}

/**
 * The user's protected messaging routes (spec 000's recipient guard): one `host /path-prefix
 * label` line each, kept as one string in storage.local under MESSAGING_ROUTES_KEY, on top of the
 * built-in list (PROTECTED_MESSAGING_ROUTES). Read by the background for agent runs and workflow
 * replays, and edited in Settings -> Protected messaging routes.
 *
 * Invariants:
 * - Protection fails closed line by line: a malformed stored line is skipped alone, so one bad
 *   line never drops the user's other routes (the settings page stores only valid lines anyway).
 * - The built-in routes are always protected, whatever is stored.
 */
import {
  type MessagingRoute,
  PROTECTED_MESSAGING_ROUTES,
  parseMessagingRoutes,
  RouteListError,
} from "@webbrain/agent";

export const MESSAGING_ROUTES_KEY = "messagingRoutes";

/** The stored lines, comments and blanks left out (anything but a string: none). */
export function storedRouteLines(stored: unknown): string[] {
  if (typeof stored !== "string") return [];
  return stored
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** The user's routes that parse, each line on its own. */
export function userRoutes(stored: unknown): MessagingRoute[] {
  return storedRouteLines(stored).flatMap((line) => {
    try {
      return parseMessagingRoutes(line);
    } catch (error) {
      if (!(error instanceof RouteListError)) throw error;
      console.error(`WebBrain: skipping the messaging route line "${line}": ${error.message}`);
      return [];
    }
  });
}

/** Every protected route: the built-in ones and the user's. */
export function protectedRoutes(stored: unknown): MessagingRoute[] {
  return [...PROTECTED_MESSAGING_ROUTES, ...userRoutes(stored)];
}

export async function loadProtectedRoutes(
  area: browser.storage.StorageArea = browser.storage.local,
): Promise<MessagingRoute[]> {
  const stored = await area.get(MESSAGING_ROUTES_KEY).then(
    (items) => items[MESSAGING_ROUTES_KEY],
    () => undefined,
  );
  return protectedRoutes(stored);
}

/** The line a route is stored as (the same form `--messaging-route` takes). */
export function routeLine(route: MessagingRoute): string {
  return `${route.host} ${route.pathPrefix} ${route.label}`;
}

/** Same site and path: adding it again protects nothing more. */
export function sameRoute(a: MessagingRoute, b: MessagingRoute): boolean {
  return a.host === b.host && a.pathPrefix === b.pathPrefix;
}

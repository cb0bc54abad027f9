/**
 * The runner's two in-page scripts, built once per process from @webbrain/page's sources: the
 * page layer, and the runner's realm code installed before it (the call door, the closed-root
 * probe, the roots shim, element tools). Imported lazily so commands that fail early never pay
 * for the build.
 */
let cached: Promise<string> | undefined;
let cachedRealm: Promise<string> | undefined;

export function loadPageScript(): Promise<string> {
  cached ??= import("@webbrain/page/bundle").then((page) => page.buildPageScript());
  return cached;
}

export function loadRunnerRealmScript(): Promise<string> {
  cachedRealm ??= import("@webbrain/page/bundle").then((page) => page.buildRunnerRealmScript());
  return cachedRealm;
}

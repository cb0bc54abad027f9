/**
 * The page layer's script, built once per process from @webbrain/page's sources.
 * Imported lazily so commands that fail early never pay for the build.
 */
let cached: Promise<string> | undefined;

export function loadPageScript(): Promise<string> {
  cached ??= import("@webbrain/page/bundle").then((page) => page.buildPageScript());
  return cached;
}

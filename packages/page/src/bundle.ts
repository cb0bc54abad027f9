/**
 * Node side: builds the page layer into one IIFE script string with esbuild. The script installs
 * `globalThis.__webbrainPage = { handle, version }` idempotently; it imports nothing at run time.
 * Injected by the runner (BiDi sandbox realm) and by the add-on (content script).
 */
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Browsers the script must run in: the Firefox ESR this project targets. */
const TARGET = "firefox128";
const ENTRY = fileURLToPath(new URL("./install.ts", import.meta.url));

let cached: Promise<string> | undefined;

/** The whole page layer as one script. Built once per process. */
export function buildPageScript(): Promise<string> {
  cached ??= buildOnce();
  return cached;
}

async function buildOnce(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: TARGET,
    write: false,
    minify: false,
    legalComments: "none",
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("buildPageScript: esbuild produced no output for the page layer");
  return file.text;
}

/** A function declaration for BiDi `script.callFunction`: calls handle in the realm. */
export const CALL_HANDLE_FUNCTION = "(action, params) => globalThis.__webbrainPage.handle(action, params)";

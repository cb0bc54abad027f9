/**
 * Node side: builds the page layer into one IIFE script string with esbuild. The script installs
 * `globalThis.__webbrainPage = { handle, version }` idempotently; it imports nothing at run time.
 * Injected by the runner (BiDi sandbox realm) and by the add-on (content script).
 */
import { fileURLToPath } from "node:url";
import { PAGE_CALL_SCHEMAS } from "@webbrain/protocol";
import { build, type Plugin } from "esbuild";

/** Browsers the script must run in: the Firefox ESR this project targets. */
const TARGET = "firefox128";
const ENTRY = fileURLToPath(new URL("./install.ts", import.meta.url));
/** The runner's second bundle: the page call door, closed-root probe, roots shim, element tools. */
const RUNNER_REALM_ENTRY = fileURLToPath(new URL("./runner-realm/install-runner-realm.ts", import.meta.url));

/** The module the bundle fills with the params schemas as JSON (call-schemas.ts). */
const CALL_SCHEMAS_MODULE = /[\\/]src[\\/]call-schemas\.ts$/;

/**
 * Puts the page actions' params schemas into the bundle as data. Built with typebox, they would
 * bring its builders along (about 150 KB, a parse on every page the script is injected into);
 * as JSON they are a few KB. Descriptions are for the model, so they are left out.
 */
const callSchemasAsJson: Plugin = {
  name: "call-schemas-as-json",
  setup(bundler) {
    bundler.onLoad({ filter: CALL_SCHEMAS_MODULE }, () => ({
      contents: `export const CALL_SCHEMAS = ${JSON.stringify(PAGE_CALL_SCHEMAS, (key, value: unknown) =>
        key === "description" && typeof value === "string" ? undefined : value,
      )};`,
      loader: "js",
    }));
  },
};

let cached: Promise<string> | undefined;
let cachedRunnerRealm: Promise<string> | undefined;

/** The whole page layer as one script. Built once per process. */
export function buildPageScript(): Promise<string> {
  cached ??= buildOnce(ENTRY, "the page layer");
  return cached;
}

/**
 * The runner's sandbox code that runs before the page layer (runner-realm/): install it first,
 * then the page layer, in the same realm. Built once per process.
 */
export function buildRunnerRealmScript(): Promise<string> {
  cachedRunnerRealm ??= buildOnce(RUNNER_REALM_ENTRY, "the runner realm");
  return cachedRunnerRealm;
}

async function buildOnce(entry: string, what: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: TARGET,
    write: false,
    minify: false,
    legalComments: "none",
    logLevel: "silent",
    plugins: [callSchemasAsJson],
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`bundle: esbuild produced no output for ${what}`);
  return file.text;
}

/** A function declaration for BiDi `script.callFunction`: calls handle in the realm. */
export const CALL_HANDLE_FUNCTION = "(action, params) => globalThis.__webbrainPage.handle(action, params)";

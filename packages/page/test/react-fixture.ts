/**
 * Builds the React fixture (packages/testkit/fixtures/page/react-form/app.jsx) with esbuild when
 * a test file starts, and serves it as /page/react-form/bundle.js: nothing generated is committed.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { DEFAULT_FIXTURES_ROOT } from "@webbrain/testkit";
import { build } from "esbuild";

export const REACT_BUNDLE_PATH = "/page/react-form/bundle.js";

export async function buildReactFixture(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("page/react-form/app.jsx", `file://${DEFAULT_FIXTURES_ROOT}`))],
    bundle: true,
    format: "iife",
    platform: "browser",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    minify: true,
    write: false,
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("buildReactFixture: esbuild produced no output");
  return file.text;
}

/** A fixture-server route that serves the bundle. */
export function reactBundleRoute(bundle: string) {
  return {
    [REACT_BUNDLE_PATH]: (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" });
      res.end(bundle);
    },
  };
}

/**
 * Test glue for script-wired controls on the runner's port: the page script is registered as a
 * BiDi preload script in the sandbox (as PageScriptChannel does), so its listener hook is in
 * place before the fixture's own scripts run. jQuery is served from node_modules.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { navigate } from "@webbrain/bidi";
import type { FixtureServerOptions } from "@webbrain/testkit";
import { buildPageScript, buildRunnerRealmScript } from "../src/bundle.js";
import { PageSession, SANDBOX, usePageFixtures } from "./page-session.js";

const require = createRequire(import.meta.url);

/** Routes that serve jQuery from node_modules at /vendor/jquery.js. */
export async function jqueryRoutes(): Promise<FixtureServerOptions> {
  const jquery = await readFile(require.resolve("jquery/dist/jquery.min.js"), "utf8");
  return {
    routes: {
      "/vendor/jquery.js": (_req, res) => {
        res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
        res.end(jquery);
      },
    },
  };
}

/** What the wired fixtures' last handler wrote in `#last` (which listener a click reached). */
export function lastAction(page: PageSession): Promise<string> {
  return page.page<string>("document.getElementById('last').textContent");
}

/** Fixtures whose `open` preloads the page script in the tab before navigating. */
export function useWiredFixtures() {
  const env = usePageFixtures(jqueryRoutes);
  return {
    env,
    async open(path: string): Promise<PageSession> {
      const context = await env.firefox.newTab();
      // What the runner preloads, in its order: the runner's realm code (the call door), then the page layer.
      const script = `${await buildRunnerRealmScript()}\n${await buildPageScript()}`;
      await env.firefox.client.send("script.addPreloadScript", {
        functionDeclaration: `() => { ${script} }`,
        sandbox: SANDBOX,
        contexts: [context],
      });
      const session = new PageSession(env.firefox.client, context);
      await navigate(env.firefox.client, context, env.fixtures.url(path));
      return session;
    },
  };
}

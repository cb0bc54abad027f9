/**
 * Tool conformance, runner: in real Firefox over BiDi, for every mode and tier, every tool the
 * runner's port is offered is called once with its contract's example (testkit's
 * conformanceArgs resolves the example's placeholders on this page; iframe_type and verify_form
 * also on the same-origin frame, click also on a download link: testkit's conformanceFollowUps)
 * on the conformance fixture through the agent's own executor (ToolRunner, what `exec` and MCP use) and must
 * succeed (no "unknown action", no "not supported") with the effect testkit's
 * conformanceEffectProblem reads from its result: verify_form {urlFilter} names the frame's field
 * and none of the top page's, a click on a download link reports the download, and so on. The list of tools the port does not offer is asserted exactly (it is empty: over
 * BiDi the runner runs every declared tool), so a capability that drifts fails here.
 * pause_for_user needs a person at hand: the port gets the terminal person `webbrain run`
 * uses, over a stream where a line is typed whenever its message appears.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { TOOL_CATALOG, toolsNotOffered } from "@webbrain/agent";
import { TREE_NODES_PARAM, treeNodesOf } from "@webbrain/protocol";
import {
  CONFORMANCE_COMBOS,
  CONFORMANCE_ORDER,
  conformanceArgs,
  conformanceEffectProblem,
  conformanceFollowUps,
  conformancePageUrl,
  detailsProblem,
  type FixtureServer,
  NOT_OFFERED,
  startFixtureServer,
  UNSUPPORTED_ANSWER,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserConnection, openBrowserConnection } from "../src/browser/browser-connection.js";
import { BidiBrowserPort } from "../src/port/bidi-browser-port.js";
import { loadPageScript } from "../src/port/page-script-source.js";
import { terminalPerson } from "../src/run/wait-for-person.js";
import { ToolRunner } from "../src/tools/tool-runner.js";

let server: FixtureServer;
let connection: BrowserConnection;
let port: BidiBrowserPort;
let workDir: string;
/** What the person's terminal showed. */
let terminal = "";

/** A terminal whose person types "solved" each time the agent hands over. */
function scriptedTerminal() {
  const keyboard = new PassThrough();
  const screen = new PassThrough();
  screen.on("data", (chunk) => {
    terminal += String(chunk);
    if (String(chunk).includes("Press Enter")) setImmediate(() => keyboard.write("solved\n"));
  });
  return terminalPerson(keyboard, screen);
}

beforeAll(async () => {
  server = await startFixtureServer();
  workDir = await mkdtemp(join(tmpdir(), "webbrain-conformance-"));
  connection = await openBrowserConnection({});
  port = await BidiBrowserPort.open({
    client: connection.client,
    pageScript: await loadPageScript(),
    downloadsDir: join(workDir, "downloads"),
    ownsBrowser: true,
    person: scriptedTerminal(),
  });
  // Ask reads downloads but cannot start one: give every mode one to read.
  await port.download(server.url("/conformance/report.txt"));
});

afterAll(async () => {
  port?.dispose();
  await connection?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("runner tool conformance", () => {
  it("has one conformance call for every declared tool", () => {
    expect([...CONFORMANCE_ORDER].sort()).toEqual(TOOL_CATALOG.map((spec) => spec.name).sort());
  });

  it("does not offer exactly the tools testkit's NOT_OFFERED.runner explains", () => {
    expect(toolsNotOffered(port.capabilities)).toEqual(Object.keys(NOT_OFFERED.runner));
  });

  for (const [mode, tier] of CONFORMANCE_COMBOS) {
    it(`${mode}/${tier}: every offered tool runs`, async () => {
      const pageUrl = conformancePageUrl(server.origin, server.crossOrigin);
      const tab = await port.newTab(pageUrl, { active: true });
      const opened = new Set([tab.id]);
      try {
        const tree = await port.pageAction(tab.id, "get_accessibility_tree", { [TREE_NODES_PARAM]: true });
        expect(tree.success, String(tree.error)).toBe(true);
        const runner = new ToolRunner({
          port,
          tabId: tab.id,
          mode,
          tier,
          vision: true,
          advisoryGuards: true,
        });
        const offered = new Set(runner.tools().map((spec) => spec.name));
        const failures: string[] = [];
        let called = 0;
        for (const tool of CONFORMANCE_ORDER) {
          if (!offered.has(tool)) continue;
          const [latest] = await port.listDownloads({ limit: 1 });
          const ctx = {
            nodes: treeNodesOf(tree) ?? [],
            pageUrl,
            url: (path: string) => server.url(path),
            offered,
            ...(latest ? { downloadId: latest.id } : {}),
          };
          called++;
          for (const args of [conformanceArgs(tool, ctx), ...conformanceFollowUps(tool, ctx)]) {
            const answer = await runner.call(tool, args);
            if (typeof answer.result.tabId === "string") opened.add(answer.result.tabId);
            const problem =
              answer.result.success !== true || UNSUPPORTED_ANSWER.test(answer.text)
                ? String(answer.result.error ?? answer.text.slice(0, 300))
                : (conformanceEffectProblem(tool, args, answer.result, pageUrl) ??
                  detailsProblem(tool, answer.result));
            if (problem) failures.push(`${tool} ${JSON.stringify(args)}: ${problem}`);
          }
        }
        expect(failures).toEqual([]);
        expect(called).toBe(offered.size);
        if (offered.has("pause_for_user")) expect(terminal).toContain("Solve the captcha, then press Enter.");
      } finally {
        for (const id of opened) await port.closeTab(id).catch(() => undefined);
      }
    });
  }
});

/**
 * `webbrain record` end to end, with the real bin and real headless Firefox. The test is the
 * person: it reaches the recording's own BiDi session through the fake Grid (`--webdriver`: the
 * Grid holds the one session and relays the runner's frames, so the test can send trusted input
 * on it too) and fills a sign-up form with `input.performActions`: a name, a password, a plan
 * picked with the keyboard, a checkbox ticked through its label's text, then the submit button.
 * SIGINT ends the recording; the saved workflow names its parameters after the fields, keeps no
 * password (in no file written, nor in what the command printed), and replays with
 * `webbrain workflow run` on a redesigned copy of the page (other ids, nesting and label wiring,
 * a second "Full name" field elsewhere) with other values: the server gets them. A second
 * recording, where the page's own scripts also click and type (untrusted: left out), is ended by
 * the person's Ctrl+Alt+S in the page; a third, ended before any step, writes nothing (exit 1).
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BidiClient, performActions } from "@webbrain/bidi";
import {
  click,
  type FakeGrid,
  type FixtureServer,
  KEY,
  keyPresses,
  signupRoute,
  startFakeGrid,
  startFixtureServer,
  typeKeys,
  waitFor,
} from "@webbrain/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type CliRun, runCli, startCli } from "./run-cli.js";

/** The CLI and two Firefox launches on a loaded two-core machine. */
const PROCESS_TEST_TIMEOUT_MS = 180_000;
/** A recording's "ready" line comes after a Firefox launch and the start page's load. */
const RECORDING_READY_TIMEOUT_MS = 60_000;
const RECORDED_PASSWORD = "hunter2-Recorded-9f3c";
const REPLAYED_PASSWORD = "Replay-Only-71ab";

let server: FixtureServer;
let grid: FakeGrid;
let workDir: string;
const signups: Record<string, string>[] = [];

beforeAll(async () => {
  server = await startFixtureServer({ routes: { "/api/signup": signupRoute(signups) } });
  grid = await startFakeGrid();
  workDir = await mkdtemp(join(tmpdir(), "webbrain-record-test-"));
  // The approved-workflow list (workflow-approvals.ts) is a file we write: it lives here too.
  vi.stubEnv("WEBBRAIN_STATE_DIR", join(workDir, "state"));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await grid?.close();
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Every file under `dir`, as text. */
async function allFileTexts(dir: string): Promise<{ path: string; text: string }[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((e) => e.isFile())
      .map(async (e) => {
        const path = join(e.parentPath, e.name);
        return { path, text: await readFile(path, "utf8") };
      }),
  );
}

/**
 * `webbrain record` of `page` into `out`, started and ready for the person: answers the child,
 * the Grid's session client (the one the runner's frames go through) and the recorded tab.
 */
async function startRecording(page: string, out: string) {
  let ready = false;
  let exited: CliRun | undefined;
  const started = startCli(
    ["record", server.url(page), "--out", out, "--headless", "--webdriver", grid.url],
    { onStderr: (text) => (ready ||= text.includes("webbrain: recording on")) },
  );
  void started.done.then((run) => (exited = run));
  await waitFor(() => ready || exited, {
    timeoutMs: RECORDING_READY_TIMEOUT_MS,
    message: "webbrain record never said it was recording",
  });
  if (!ready)
    throw new Error(`webbrain record ended before recording (exit ${exited?.code}): ${exited?.stderr}`);
  const browser = [...grid.sessions.values()].at(-1);
  if (!browser) throw new Error("the Grid has no session");
  const tree = await browser.client.send("browsingContext.getTree", { maxDepth: 0 });
  const context = tree.contexts.find((c) => c.url.startsWith(server.url(page)))?.context;
  if (!context) throw new Error(`no tab shows ${page}`);
  return { ...started, client: browser.client, context };
}

function press(client: BidiClient, context: string, ...keys: string[]): Promise<void> {
  return performActions(client, context, [{ type: "key", id: "keyboard", actions: keyPresses(keys) }]);
}

describe("webbrain record", () => {
  const workflowPath = () => join(workDir, "signup.workflow.json");

  it(
    "records a person's form as a workflow without the password, which replays on a redesigned page",
    async () => {
      const rec = await startRecording("/record/signup-v1.html", workflowPath());
      const { client, context } = rec;
      await click(client, context, "#n1");
      await typeKeys(client, context, "Ada Lovelace");
      await click(client, context, "#p1");
      await typeKeys(client, context, RECORDED_PASSWORD);
      // The plan with the keyboard, as a person tabbing through: Free -> Pro.
      await press(client, context, KEY.tab, KEY.arrowDown);
      await click(client, context, "label span");
      await click(client, context, "#go");
      await waitFor(() => signups.length === 1, { message: "the recorded form never arrived" });
      // The click's navigation has started once the welcome page shows.
      await waitFor(
        async () => {
          const tree = await client.send("browsingContext.getTree", { root: context, maxDepth: 0 });
          return tree.contexts[0]?.url.endsWith("/api/signup");
        },
        { message: "the welcome page never loaded" },
      );
      rec.child.kill("SIGINT");
      const recorded = await rec.done;
      expect(recorded.code, recorded.stderr).toBe(0);
      expect(signups[0]).toEqual({
        full_name: "Ada Lovelace",
        password: RECORDED_PASSWORD,
        plan: "Pro",
        news: "on",
      });
      expect(recorded.stderr).toContain("recording ended (interrupted); saved 5 steps");
      expect(recorded.stderr).toContain(
        'type into textbox "Password" in form "Account" (a secret: not recorded)',
      );

      const workflow = JSON.parse(await readFile(workflowPath(), "utf8"));
      expect(workflow.params).toEqual([
        { name: "full_name", default: "Ada Lovelace", field: "Full name" },
        { name: "password", default: "", field: "Password", secret: true },
        { name: "plan", default: "Pro", field: "Plan" },
      ]);
      expect(
        workflow.steps.map((s: { tool: string; args: object; target: { role: string; name: string } }) => [
          s.tool,
          s.args,
          `${s.target.role} ${s.target.name}`,
        ]),
      ).toEqual([
        ["type_ax", { value: "{{full_name}}" }, "textbox Full name"],
        ["type_ax", { value: "{{password}}" }, "textbox Password"],
        ["type_ax", { value: "{{plan}}" }, "combobox Plan"],
        ["click_ax", {}, "checkbox Send me news"],
        ["click_ax", {}, "button Create account"],
      ]);
      expect(workflow.steps[4].target.within).toEqual([{ role: "form", name: "Account" }]);
      expect(workflow.steps[4].expect).toMatchObject({ urlChanged: true });

      const replay = await runCli([
        "workflow",
        "run",
        workflowPath(),
        "--url",
        server.url("/record/signup-v2.html"),
        "--param",
        "full_name=Grace Hopper",
        "--param",
        `password=${REPLAYED_PASSWORD}`,
        "--param",
        "plan=Team",
        "--webdriver",
        grid.url,
      ]);
      expect(replay.code, replay.stderr).toBe(0);
      expect(signups[1]).toEqual({
        full_name: "Grace Hopper",
        password: REPLAYED_PASSWORD,
        plan: "Team",
        news: "on",
      });

      const written = await allFileTexts(workDir);
      expect(written.map((f) => f.path)).toContain(workflowPath());
      for (const file of written) expect(file.text, file.path).not.toContain(RECORDED_PASSWORD);
      expect(recorded.stdout + recorded.stderr).not.toContain(RECORDED_PASSWORD);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "ignores what the page's own scripts do, ends on Ctrl+Alt+S in the page, and saves what was done",
    async () => {
      const out = join(workDir, "name-only.workflow.json");
      const rec = await startRecording("/record/signup-v1.html", out);
      const { client, context } = rec;
      // The page's own scripts click, choose and type (untrusted events): not the person.
      const scripted = await client.send("script.evaluate", {
        expression: `(() => {
          document.querySelector("#c1").click();
          const plan = document.querySelector("#s1");
          plan.value = "Team";
          plan.dispatchEvent(new Event("change", { bubbles: true }));
          const email = document.querySelector("input[type=email]");
          email.value = "bot@example.com";
          email.dispatchEvent(new Event("input", { bubbles: true }));
          return document.querySelector("#c1").checked;
        })()`,
        target: { context },
        awaitPromise: false,
      });
      expect(scripted).toMatchObject({ type: "success", result: { type: "boolean", value: true } });
      await click(client, context, "#n1");
      await typeKeys(client, context, "Ada");
      await performActions(client, context, [
        {
          type: "key",
          id: "keyboard",
          actions: [
            { type: "keyDown", value: KEY.control },
            { type: "keyDown", value: KEY.alt },
            { type: "keyDown", value: "s" },
            { type: "keyUp", value: "s" },
            { type: "keyUp", value: KEY.alt },
            { type: "keyUp", value: KEY.control },
          ],
        },
      ]);
      const recorded = await rec.done;
      expect(recorded.code, recorded.stderr).toBe(0);
      expect(recorded.stderr).toContain("recording ended (shortcut); saved 1 steps");
      const workflow = JSON.parse(await readFile(out, "utf8"));
      expect(workflow.params).toEqual([{ name: "full_name", default: "Ada", field: "Full name" }]);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "writes nothing when the recording ends before any step, and says so",
    async () => {
      const out = join(workDir, "empty.workflow.json");
      const rec = await startRecording("/record/signup-v1.html", out);
      rec.child.kill("SIGINT");
      const recorded = await rec.done;
      expect(recorded.code).toBe(1);
      expect(recorded.stderr).toContain("recording ended (interrupted); The recording has no steps");
      expect(recorded.stderr).toContain("Nothing was written.");
      await expect(readFile(out, "utf8")).rejects.toMatchObject({ code: "ENOENT" });
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

/**
 * Attacks through a workflow file (issue 20, point 4) and secrets in what a run records (point 6),
 * on the browser-free core: a crafted file replayed through replayWorkflow cannot run what the
 * mode, the permission gate, the duplicate-submit guard or the URL checks forbid; a password the
 * agent typed is in no trace record and no saved workflow. (The same, end to end in Firefox:
 * packages/runner/test/security-replay.test.ts and security-secrets.test.ts.)
 */
import { describe, expect, it } from "vitest";
import {
  type BrowserPort,
  describeSteps,
  type PageResult,
  parseWorkflow,
  replayWorkflow,
  SECRET_PLACEHOLDER,
  serializeTrace,
  TraceRecorder,
  type Workflow,
  WorkflowError,
  workflowFromTrace,
} from "../src/index.js";
import { MemoryBrowser } from "./memory-browser.js";
import { line } from "./scripted-tree.js";

const PAGE = "https://shop.example/checkout";
const NODES = [
  line(0, "form", "Pay"),
  line(1, "textbox", "Card holder", { ref: 1 }),
  line(1, "button", "Pay now", { ref: 2 }),
  line(1, "button", "Attach", { ref: 3 }),
];

function browser(): MemoryBrowser {
  return new MemoryBrowser({ [PAGE]: { title: "Checkout", tree: NODES } }, PAGE);
}

function crafted(steps: Workflow["steps"], startUrl = ""): Workflow {
  return parseWorkflow(
    JSON.stringify({
      webbrainWorkflow: 2,
      name: "crafted",
      createdAt: "",
      fromRun: "",
      startUrl,
      params: [],
      steps,
    }),
  );
}

const PAY = { role: "button", name: "Pay now", within: [{ role: "form", name: "Pay" }] };

describe("a replayed workflow goes through the executor's gates", () => {
  it("refuses an execute_js step in Act mode: the page never runs it", async () => {
    const port = browser();
    const result = await replayWorkflow(
      port,
      "1",
      crafted([{ tool: "execute_js", args: { code: "document.title = 'pwned'" }, url: PAGE }]),
    );
    expect(result).toMatchObject({ status: "stopped", step: 1, completed: 0 });
    expect(result.status === "stopped" && result.reason).toMatch(/execute_js failed: .*Dev/);
    expect(port.named("execute_js")).toEqual([]);
  });

  it("refuses a javascript: navigation, as a step and as the start page", async () => {
    const port = browser();
    const step = await replayWorkflow(
      port,
      "1",
      crafted([{ tool: "navigate", args: { url: "javascript:alert(document.cookie)" }, url: PAGE }]),
    );
    expect(step.status === "stopped" && step.reason).toMatch(/javascript: URLs are refused/);
    const start = await replayWorkflow(
      port,
      "1",
      crafted([{ tool: "click_ax", args: {}, target: PAY, url: PAGE }], "javascript:alert(1)"),
    );
    expect(start).toMatchObject({ status: "stopped", step: 0 });
    expect(port.named("navigate")).toEqual([]);
    expect(port.named("click_ax")).toEqual([]);
  });

  it("asks the permission gate before a step acts, and a denial stops the replay", async () => {
    const port = browser();
    const asked: string[] = [];
    const result = await replayWorkflow(
      port,
      "1",
      crafted([{ tool: "click_ax", args: {}, target: PAY, url: PAGE }]),
      {
        approver: async (request) => {
          asked.push(`${request.capability} ${request.origin}`);
          return "deny";
        },
      },
    );
    expect(asked).toEqual(["interact https://shop.example"]);
    expect(result.status === "stopped" && result.reason).toMatch(/The user denied interact/);
    expect(port.named("click_ax")).toEqual([]);
  });

  it("refuses a second click on the same submit button on the same page (duplicate-submit guard)", async () => {
    const port = browser();
    const pay = { tool: "click_ax", args: {}, target: PAY, url: PAGE };
    const result = await replayWorkflow(port, "1", crafted([pay, pay]));
    expect(result).toMatchObject({ status: "stopped", step: 2, completed: 1 });
    expect(port.named("click_ax")).toHaveLength(1);
  });

  it("replays a saved upload_file step through the port's upload, not as an unknown page action", async () => {
    const uploads: Record<string, unknown>[] = [];
    const port: MemoryBrowser & Pick<BrowserPort, "uploadFile"> = Object.assign(browser(), {
      uploadFile: async (_tab: string, request: Record<string, unknown>): Promise<PageResult> => {
        uploads.push(request);
        return { success: true, files: ["report.pdf"] };
      },
    });
    const target = { role: "button", name: "Attach", within: [{ role: "form", name: "Pay" }] };
    const result = await replayWorkflow(
      port,
      "1",
      crafted([{ tool: "upload_file", args: { path: "/tmp/report.pdf" }, target, url: PAGE }]),
    );
    expect(result).toEqual({ status: "done", steps: 1 });
    expect(uploads).toEqual([{ ref_id: 3, path: "/tmp/report.pdf" }]);
  });
});

describe("a typed password is never recorded", () => {
  const SECRET = "hunter2-Секрет";

  function recordLogin(): TraceRecorder {
    const port = browser();
    const recorder = new TraceRecorder({ task: "log in", mode: "act", url: PAGE, verbose: "deep" });
    const traced = recorder.port(port);
    port.pages[PAGE]!.onAction = (action) =>
      action === "type_ax"
        ? { success: true, verified: true, value: "•••", secret: true }
        : { success: true };
    return Object.assign(recorder, { traced });
  }

  it("keeps the placeholder in the trace, even where the text came before the field said it was secret", async () => {
    const recorder = recordLogin();
    const traced = (recorder as TraceRecorder & { traced: MemoryBrowser }).traced;
    // A Deep verbose request that carried the text before the run knew it was a secret.
    recorder.onEvent({ type: "plan", plan: { goal: `type ${SECRET}`, steps: [], risks: [] } });
    await traced.pageAction("1", "get_accessibility_tree", {});
    recorder.onEvent({ type: "tool_call", id: "t", name: "type_ax", args: { ref_id: 1, value: SECRET } });
    const typed = await traced.pageAction("1", "type_ax", { ref_id: 1, value: SECRET });
    recorder.onEvent({
      type: "tool_result",
      id: "t",
      name: "type_ax",
      ok: true,
      preview: JSON.stringify(typed),
      secret: true,
    });
    recorder.onEvent({
      type: "run_end",
      result: { status: "done", text: `Logged in with ${SECRET}.`, steps: 2 },
    });
    const text = serializeTrace(recorder.records);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("hunter2");
    expect(recorder.rescrubbed).toBe(true);
    const call = recorder.records.find((r) => r.type === "tool_call");
    expect(call).toMatchObject({ args: { ref_id: 1, value: SECRET_PLACEHOLDER }, result: { secret: true } });

    // Saved as a workflow: a secret parameter with no default, asked for at every replay.
    const workflow = workflowFromTrace(recorder.records);
    expect(workflow.params).toEqual([
      { name: "card_holder", default: "", field: "Card holder", secret: true },
    ]);
    expect(JSON.stringify(workflow)).not.toContain("hunter2");
    expect(workflow.webbrainWorkflow).toBe(3);
    await expect(replayWorkflow(browser(), "1", workflow)).rejects.toThrow(WorkflowError);
    await expect(replayWorkflow(browser(), "1", workflow)).rejects.toThrow(/secret parameter "card_holder"/);
    expect(describeSteps(workflow)[0]).toContain("{{card_holder}}");

    const port = browser();
    const replayed = await replayWorkflow(port, "1", workflow, { params: { card_holder: "new-secret" } });
    expect(replayed).toEqual({ status: "done", steps: 1 });
    expect(port.named("type_ax")[0]?.params).toMatchObject({ value: "new-secret" });
  });

  it("drops a secret default a crafted file carries, and still loads version 1 files", () => {
    const file = parseWorkflow(
      JSON.stringify({
        webbrainWorkflow: 2,
        params: [{ name: "pw", default: "leaked", field: "Password", secret: true }],
        steps: [{ tool: "type_ax", args: { value: "{{pw}}" }, url: PAGE }],
      }),
    );
    expect(file.params).toEqual([{ name: "pw", default: "", field: "Password", secret: true }]);
    const old = parseWorkflow(
      JSON.stringify({
        webbrainWorkflow: 1,
        params: [{ name: "email", default: "a@b.c", field: "Email" }],
        steps: [{ tool: "type_ax", args: { value: "{{email}}" }, url: PAGE }],
      }),
    );
    expect(old.params).toEqual([{ name: "email", default: "a@b.c", field: "Email" }]);
  });
});

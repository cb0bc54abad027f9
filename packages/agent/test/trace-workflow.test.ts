/**
 * The browser-free parts of traces, workflows, the recipient guard's route list and the API
 * shortcut log: parsing and its typed errors, finding a target by what it was, saving a run as
 * a workflow, and what the API log keeps. (Their behaviour in Firefox is tested by the runner
 * and the add-on.)
 */
import { linkTreeNodes, placeTreeNodes } from "@webbrain/protocol";
import { describe, expect, it } from "vitest";
import {
  ApiCallLog,
  apiReplayGuidance,
  bodyShape,
  findTarget,
  handoverTask,
  matchMessagingRoute,
  parseMessagingRoutes,
  parseTrace,
  RouteListError,
  recipientFromPlan,
  serializeTrace,
  TraceFormatError,
  type TraceRecord,
  TraceRecorder,
  WorkflowError,
  workflowFromTrace,
} from "../src/index.js";
import { line } from "./scripted-tree.js";

const NODES = placeTreeNodes(
  linkTreeNodes([
    line(0, "heading", "Checkout", { states: ["level=1"] }),
    line(0, "form", "Shipping"),
    line(1, "textbox", "Email", { ref: 1 }),
    line(1, "button", "Save", { ref: 2 }),
    line(0, "region", "Newsletter"),
    line(1, "textbox", "Email", { ref: 3 }),
    line(1, "button", "Save", { ref: 4 }),
  ]),
);

function recorded(): TraceRecord[] {
  let now = Date.parse("2026-12-01T10:00:00Z");
  const recorder = new TraceRecorder(
    { task: "ship to ada@example.com", mode: "act", url: "https://shop.example/" },
    undefined,
    () => (now += 10),
  );
  recorder.onEvent({
    type: "tool_call",
    id: "a",
    name: "type_ax",
    args: { ref_id: 1, value: "ada@example.com" },
  });
  recorder.onEvent({ type: "tool_result", id: "a", name: "type_ax", ok: true, preview: "ok" });
  return recorder.records;
}

describe("finding a target again", () => {
  it("tells two same-named elements apart by the part of the page they are in", () => {
    expect(
      findTarget(NODES, { role: "button", name: "Save", within: [{ role: "region", name: "Newsletter" }] }),
    ).toMatchObject({
      ok: true,
      ref: "4",
    });
  });
  it("refuses to guess between two candidates", () => {
    const result = findTarget(NODES, { role: "textbox", name: "Email", within: [] });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('2 elements fit textbox "Email"') });
  });
  it("says what the page has instead when the name is gone", () => {
    expect(findTarget(NODES, { role: "textbox", name: "Phone", within: [] })).toEqual({
      ok: false,
      reason: 'no textbox named "Phone" on the page (textbox elements now: "Email", "Email")',
    });
  });
});

describe("trace files", () => {
  it("round-trips through JSON lines and refuses what it cannot read", () => {
    const records = recorded();
    expect(parseTrace(serializeTrace(records))).toEqual(records);
    expect(() => parseTrace("not json")).toThrow(TraceFormatError);
    expect(() => parseTrace('{"v":99,"type":"run_start"}')).toThrow(/format 99; this WebBrain reads up to 2/);
    expect(() => parseTrace('{"v":1,"type":"run_end","at":"x"}')).toThrow(/does not start with a run_start/);
  });
});

describe("saving a workflow", () => {
  it("refuses a run that did not finish, and an action it cannot describe", () => {
    expect(() => workflowFromTrace(recorded())).toThrow(/ended "unfinished", not done/);
    const records = recorded();
    records.push({ v: 1, type: "run_end", at: "2026-12-01T10:00:01Z", status: "done", text: "ok", steps: 1 });
    expect(() => workflowFromTrace(records)).toThrow(WorkflowError);
    expect(() => workflowFromTrace(records)).toThrow(/Step 1 \(type_ax on ref 1\) has no recorded target/);
  });
});

describe("recipient routes and targets", () => {
  it("reads one route per line and matches subdomains", () => {
    const routes = parseMessagingRoutes("# comment\nexample.com /inbox Example mail\n");
    expect(matchMessagingRoute("https://www.example.com/inbox/42", routes)?.label).toBe("Example mail");
    expect(matchMessagingRoute("https://example.com/settings", routes)).toBeUndefined();
    expect(matchMessagingRoute("https://www.douyin.com/chat?x=1")?.label).toBe("Douyin chat");
    expect(() => parseMessagingRoutes("example.com inbox")).toThrow(RouteListError);
  });
  it("pins a plan's recipient only when the user's own request names it", () => {
    const plan = { goal: "g", steps: [], risks: [], messageRecipient: "Alice Martin" };
    expect(recipientFromPlan(plan, "send hi to alice martin")).toBe("Alice Martin");
    expect(recipientFromPlan(plan, "answer my latest message")).toBeUndefined();
  });
});

describe("API shortcut log", () => {
  it("keeps shapes, never values or credentials, and stays bounded", () => {
    const log = new ApiCallLog(2);
    log.enabled = true;
    for (const qty of [1, 2, 3]) {
      log.record("t", {
        method: "POST",
        url: `https://shop.example/api/cart?token=abc${qty}`,
        status: 201,
        contentType: "application/json",
        requestShape: bodyShape(JSON.stringify({ item: "Lamp", qty }), "application/json"),
        requestBytes: 20,
        responseBytes: 10,
        headers: ["Content-Type", "Authorization", "Cookie"],
        at: qty,
      });
    }
    const calls = log.calls("t");
    expect(calls).toHaveLength(2);
    expect(calls[0]!.headers).toEqual(["content-type"]);
    expect(calls[0]!.requestShape).toBe('{"item":"string","qty":"number"}');
    expect(JSON.stringify(calls)).not.toMatch(/Lamp|abc2/);
    expect(apiReplayGuidance(calls)).toContain("- POST https://shop.example/api/cart?token=REDACTED body {");
    log.disable();
    expect(log.calls("t")).toEqual([]);
  });
});

describe("body shapes are bounded", () => {
  it("names deep values by kind, counts keys past the limit and cuts long shapes", () => {
    const deep = { a: { b: { c: { d: { e: { f: 1 } } } } }, list: [{ id: 1, tags: ["x"] }] };
    expect(bodyShape(JSON.stringify(deep), "application/json")).toBe(
      '{"a":{"b":{"c":{"d":"object"}}},"list":[{"id":"number","tags":["string"]}]}',
    );
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const shape = JSON.parse(bodyShape(JSON.stringify(wide), "application/json")!) as Record<string, string>;
    expect(Object.keys(shape)).toHaveLength(31);
    expect(shape["…"]).toBe("10 more keys");
    const long = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`${"k".repeat(60)}${i}`, "v"]));
    const cut = bodyShape(JSON.stringify(long), "application/json")!;
    expect(cut.length).toBe(1001);
    expect(cut.endsWith("…")).toBe(true);
  });
});

describe("handing a stopped replay over", () => {
  it("tells the agent the goal, the steps the replay did and the steps left, with the values", () => {
    const target = (name: string) => ({ role: "textbox", name, within: [{ role: "form", name: "Order" }] });
    const workflow = {
      webbrainWorkflow: 1,
      name: "Order for a customer",
      goal: "order 3 for Ada Lovelace",
      createdAt: "",
      fromRun: "r",
      startUrl: "",
      params: [
        { name: "customer", default: "Ada Lovelace", field: "Name" },
        { name: "email", default: "ada@example.com", field: "Email" },
      ],
      steps: [
        { tool: "type_ax", args: { value: "{{customer}}" }, target: target("Name"), url: "" },
        { tool: "type_ax", args: { value: "{{email}}" }, target: target("Email"), url: "" },
      ],
    };
    const task = handoverTask(
      workflow,
      { status: "stopped", step: 2, reason: "no textbox named Email", completed: 1 },
      { customer: "Grace Hopper" },
    );
    expect(task.split("\n")).toEqual([
      'Finish the saved workflow "Order for a customer".',
      "Its goal (the task it was recorded from): order 3 for Ada Lovelace",
      "Its replay stopped at step 2: no textbox named Email.",
      "Already done on this page by the replay (do not repeat these):",
      '1. type_ax on textbox "Name" in form "Order" {"value":"Grace Hopper"}',
      "The remaining recorded steps were (the page changed, so find their targets again):",
      '2. type_ax on textbox "Email" in form "Order" {"value":"ada@example.com"}',
    ]);
  });
});

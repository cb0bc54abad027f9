/**
 * A person's demonstration as a workflow (workflow-recording.ts), browser-free: targets described
 * from the tree's nodes, typing into one field as one parameter, a secret as a parameter
 * without a value, a navigating click expected to navigate again. The recorder's events in real
 * Firefox, and the replay of a recording, are tested by the runner (record-command.test.ts).
 */

import { linkTreeNodes, type RecordedAction, type TreeNode } from "@webbrain/protocol";
import { describe, expect, it } from "vitest";
import { WorkflowError, WorkflowRecording } from "../src/index.js";
import { line } from "./scripted-tree.js";

const URL_ = "http://127.0.0.1:9/signup";
const NODES: TreeNode[] = [
  line(0, "heading", "Sign up", { states: ["level=1"] }),
  line(0, "form", "Account"),
  line(1, "textbox", "Full name", { ref: 1 }),
  line(1, "textbox", "Password", { ref: 2 }),
  line(1, "combobox", "Plan", { ref: 3, value: "Free" }),
  line(1, "button", "Create account", { ref: 4 }),
];

function at(ref: string): { url: string; nodes: TreeNode[]; ref: string } {
  return { url: URL_, nodes: linkTreeNodes(NODES), ref };
}

describe("a recording as a workflow", () => {
  it("keeps targets, names parameters after fields, keeps no secret and expects the navigation", () => {
    let now = Date.parse("2026-12-04T10:00:00Z");
    const recording = new WorkflowRecording(URL_, () => now);
    const actions: RecordedAction[] = [
      { kind: "type", value: "Ad", ...at("1") },
      { kind: "type", value: "Ada Lovelace", ...at("1") },
      { kind: "type", value: "", secret: true, ...at("2") },
      { kind: "choose", value: "Pro", ...at("3") },
      { kind: "click", ...at("4") },
    ];
    const lines = actions.map((action) => recording.add(action));
    expect(lines[2]).toBe('type into textbox "Password" in form "Account" (a secret: not recorded)');
    now += 200;
    expect(recording.navigationStarted("http://127.0.0.1:9/api/signup")).toBeUndefined();
    now += 60_000;
    expect(recording.navigationStarted("http://127.0.0.1:9/account")).toBe(
      "navigate to http://127.0.0.1:9/account",
    );
    const workflow = recording.toWorkflow({ name: "Sign up" });
    expect(workflow.params).toEqual([
      { name: "full_name", default: "Ada Lovelace", field: "Full name" },
      { name: "password", default: "", field: "Password", secret: true },
      { name: "plan", default: "Pro", field: "Plan" },
    ]);
    expect(workflow.steps.map((s) => [s.tool, s.args, s.target?.name, s.expect])).toEqual([
      ["type_ax", { value: "{{full_name}}" }, "Full name", { value: "{{full_name}}" }],
      ["type_ax", { value: "{{password}}" }, "Password", { value: "{{password}}" }],
      ["type_ax", { value: "{{plan}}" }, "Plan", { value: "{{plan}}" }],
      ["click_ax", {}, "Create account", { changed: true, urlChanged: true }],
      ["navigate", { url: "http://127.0.0.1:9/account" }, undefined, undefined],
    ]);
    expect(workflow.steps[3]?.target).toEqual({
      role: "button",
      name: "Create account",
      within: [{ role: "form", name: "Account" }],
      heading: "Sign up",
    });
    expect(workflow).toMatchObject({
      name: "Sign up",
      startUrl: URL_,
      createdAt: "2026-12-04T10:01:00.200Z",
    });
  });

  it("leaves out an action on an element the tree did not print, and refuses an empty recording", () => {
    const recording = new WorkflowRecording(URL_);
    expect(recording.add({ kind: "click", ...at("99") })).toBeUndefined();
    expect(recording.skipped).toBe(1);
    expect(() => recording.toWorkflow()).toThrow(WorkflowError);
  });
});

/**
 * Scripted MiniWoB++ policies for testkit's scripted LLM server: a "model" that reads only what
 * the agent sends it (the task's instruction in the user message, the accessibility tree in tool
 * results) and acts by ref. Stateless: each answer is derived from the request's own history
 * (the calls made so far), so parallel episodes can share one server.
 *
 * One policy per kind of instruction (click a named button or link, type into the field, pick
 * from a list, tick boxes, open a folded tree node ...). Instructions it does not know end the
 * episode's run with a text answer ("unsupported"), counted as a failure by the harness.
 */
import { type RecordedRequest, type Reply, toolResultTexts, userTexts } from "@webbrain/testkit";

interface Call {
  name: string;
  args: Record<string, unknown>;
}

interface TreeItem {
  ref: number;
  role: string;
  name: string;
  rest: string;
}

type Next = Call | { done: string };
type Policy = (tree: TreeItem[], history: Call[]) => Next;

const LINE = /\[(\d+)\]\s+(\S+)(?:\s+"((?:[^"\\]|\\.)*)")?(.*)$/;

/** Tree lines with refs, from a tool result (plain text or JSON-escaped). */
export function treeItems(result: string): TreeItem[] {
  const text = result.includes("\\n") ? result.replace(/\\n/g, "\n").replace(/\\"/g, '"') : result;
  const items: TreeItem[] = [];
  for (const line of text.split("\n")) {
    const m = LINE.exec(line);
    if (m) items.push({ ref: Number(m[1]), role: m[2] ?? "", name: m[3] ?? "", rest: m[4] ?? "" });
  }
  return items;
}

/** The tool calls the "model" made so far (OpenAI chat dialect), oldest first. */
export function callsSoFar(request: RecordedRequest): Call[] {
  const calls: Call[] = [];
  const messages = Array.isArray(request.body.messages) ? request.body.messages : [];
  for (const message of messages as Array<Record<string, unknown>>) {
    if (message.role !== "assistant" || !Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls as Array<{ function?: { name?: string; arguments?: string } }>) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.function?.arguments ?? "{}") as Record<string, unknown>;
      } catch {
        // a malformed call counts with no arguments
      }
      calls.push({ name: call.function?.name ?? "", args });
    }
  }
  return calls;
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
const CLICKABLE = new Set([
  "button",
  "link",
  "clickable",
  "menuitem",
  "option",
  "tab",
  "treeitem",
  "gridcell",
  "checkbox",
  "radio",
]);

function named(tree: TreeItem[], name: string, roles?: ReadonlySet<string> | string[]): TreeItem | undefined {
  const ok = (item: TreeItem) =>
    !roles || (Array.isArray(roles) ? roles.includes(item.role) : roles.has(item.role));
  return (
    tree.find((i) => ok(i) && same(i.name, name)) ??
    tree.find((i) => ok(i) && i.name.toLowerCase().includes(name.toLowerCase()))
  );
}

const click = (item: TreeItem): Call => ({ name: "click_ax", args: { ref_id: item.ref } });
const actions = (history: Call[]) => history.filter((c) => c.name !== "get_accessibility_tree");
const clickedRefs = (history: Call[]) =>
  new Set(
    actions(history)
      .filter((c) => c.name === "click_ax")
      .map((c) => Number(c.args.ref_id)),
  );
const textboxes = (tree: TreeItem[]) =>
  tree.filter((i) => i.role === "textbox" || i.role === "searchbox" || i.role === "combobox");
const submit = (tree: TreeItem[]) =>
  named(tree, "Submit", ["button"]) ??
  tree.find((i) => i.role === "button" && /submit|search|login|ok/i.test(i.name));

/** Click the named control once, then stop. */
function clickNamed(name: string, roles?: string[]): Policy {
  return (tree, history) => {
    if (actions(history).length > 0) return { done: `clicked ${name}` };
    const target = named(tree, name, roles ?? [...CLICKABLE]);
    return target ? click(target) : { done: `no control named ${name}` };
  };
}

/** Click the named item; while it is not in the tree, open a collapsed node or another tab. */
function findAndClick(name: string): Policy {
  return (tree, history) => {
    const target = named(tree, name, [...CLICKABLE]);
    const clicked = clickedRefs(history);
    if (target && clicked.has(target.ref)) return { done: `clicked ${name}` };
    if (target) return click(target);
    const opener =
      tree.find((i) => /\bcollapsed\b/.test(i.rest) && !clicked.has(i.ref)) ??
      tree.find((i) => i.role === "tab" && !/\bselected\b/.test(i.rest) && !clicked.has(i.ref));
    return opener ? click(opener) : { done: `${name} is not in the tree` };
  };
}

/** Type values into fields (in order, or by name), then press the submit button. */
function fillAndSubmit(values: Array<{ field?: string; value: string }>): Policy {
  return (tree, history) => {
    const done = actions(history);
    const fields = textboxes(tree);
    if (done.length < values.length) {
      const want = values[done.length]!;
      const field = (want.field ? named(fields, want.field) : undefined) ?? fields[done.length] ?? fields[0];
      return field
        ? { name: "type_ax", args: { ref_id: field.ref, value: want.value } }
        : { done: "no text field" };
    }
    if (done.length === values.length) {
      const button = submit(tree);
      return button ? click(button) : { done: "no submit button" };
    }
    return { done: "submitted" };
  };
}

/** Tick the named boxes/radios (or pick an option of a list), then submit. */
function selectAndSubmit(names: string[]): Policy {
  return (tree, history) => {
    const done = actions(history).length;
    if (done < names.length) {
      const name = names[done]!;
      const list = tree.find((i) => i.role === "combobox" || i.role === "listbox");
      const box = named(tree, name, ["checkbox", "radio", "option", "clickable"]);
      if (box) return click(box);
      if (list) return { name: "set_field", args: { ref_id: list.ref, value: name } };
      return { done: `no choice named ${name}` };
    }
    if (done === names.length) {
      const button = submit(tree);
      return button ? click(button) : { done: "no submit button" };
    }
    return { done: "submitted" };
  };
}

const listOf = (text: string): string[] =>
  text === "nothing"
    ? []
    : text
        .split(/,\s*|\s+and\s+/)
        .map((s) => s.trim())
        .filter(Boolean);

const focusFirstField: Policy = (tree, history) => {
  const field = textboxes(tree)[0];
  return actions(history).length > 0 || !field ? { done: "focused" } : click(field);
};

const expandThenSubmit: Policy = (tree, history) => {
  const done = actions(history).length;
  const opener =
    tree.find((i) => /\bcollapsed\b/.test(i.rest)) ??
    tree.find((i) => i.role === "button" && /section/i.test(i.name));
  if (done === 0 && opener) return click(opener);
  const button = submit(tree);
  return done <= 1 && button ? click(button) : { done: "submitted" };
};

/** Instruction patterns (MiniWoB++'s wording) and the policy each one gets. */
const POLICIES: Array<[RegExp, (m: RegExpExecArray) => Policy | undefined]> = [
  [/^Click on the "(.+)" button\.$/, (m) => clickNamed(m[1]!, ["button"])],
  [/^Click the button in the dialog box labeled "(.+)"\.$/, (m) => clickNamed(m[1]!, ["button"])],
  [/^Click button (\w+)\.$/, (m) => clickNamed(m[1]!, ["button"])],
  [/^Click the cancel button\.$/, () => clickNamed("Cancel", ["button"])],
  [/^Close the dialog box by clicking the "x"\.$/, () => clickNamed("close", ["button"])],
  [/^Click on the link "(.+)"\.$/, (m) => findAndClick(m[1]!)],
  [/^Switch between the tabs to find and click on the link "(.+)"\.$/, (m) => findAndClick(m[1]!)],
  [/^Expand the sections below, to find and click on the link "(.+)"\.$/, (m) => findAndClick(m[1]!)],
  [
    /^Navigate through the file tree\. Find and click on the folder or file named "(.+)"\.$/,
    (m) => findAndClick(m[1]!),
  ],
  [/^Click on Tab #(\d+)\.$/, (m) => clickNamed(`Tab #${m[1]}`, ["tab", "link", "clickable"])],
  [/^Focus into the textbox\.$/, () => focusFirstField],
  [/^Enter "(.+)" into the text field and press Submit\.$/, (m) => fillAndSubmit([{ value: m[1]! }])],
  [/^Use the textbox to enter "(.+)" and press "Search"/, (m) => fillAndSubmit([{ value: m[1]! }])],
  [
    /^Enter the password "(.+)" into both text fields and press submit\.$/i,
    (m) => fillAndSubmit([{ value: m[1]! }, { value: m[1]! }]),
  ],
  [
    /^Enter the username "(.+)" and the password "(.+)" into the text fields and press login\.$/i,
    (m) =>
      fillAndSubmit([
        { field: "username", value: m[1]! },
        { field: "password", value: m[2]! },
      ]),
  ],
  [/^Select (.+) from the (?:scroll )?list and click Submit\.$/, (m) => selectAndSubmit([m[1]!])],
  [
    /^Select (.+) and click Submit\.$/,
    (m) => (/^words similar to/.test(m[1]!) ? undefined : selectAndSubmit(listOf(m[1]!))),
  ],
  [/^Expand the section below and click submit\.$/, () => expandThenSubmit],
];

/** The policy for an instruction, or undefined when no scripted policy knows it. */
export function policyFor(utterance: string): Policy | undefined {
  const u = utterance.replace(/\s+/g, " ").trim();
  for (const [pattern, make] of POLICIES) {
    const m = pattern.exec(u);
    if (m) return make(m);
  }
  return undefined;
}

/** Finds the instruction in the agent's first user message (it may add the URL and title). */
export function utteranceOf(request: RecordedRequest): string {
  const text = userTexts(request)[0] ?? "";
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => policyFor(l.replace(/^(task|user request|request):\s*/i, ""))) ?? lines[0] ?? "";
}

/** One scripted model turn: read the tree first, then the policy's next action, then done. */
export function miniwobStep(request: RecordedRequest): Reply {
  const history = callsSoFar(request);
  const last = history.at(-1);
  if (last?.name !== "get_accessibility_tree") {
    return { toolCalls: [{ name: "get_accessibility_tree", arguments: {} }] };
  }
  const utterance = utteranceOf(request).replace(/^(task|user request|request):\s*/i, "");
  const policy = policyFor(utterance);
  if (!policy) return { text: `unsupported instruction: ${utterance}` };
  const tree = treeItems(toolResultTexts(request).at(-1) ?? "");
  const next = policy(tree, history);
  if ("done" in next) return { toolCalls: [{ name: "done", arguments: { summary: next.done } }] };
  return { toolCalls: [{ name: next.name, arguments: next.args }] };
}

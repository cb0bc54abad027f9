/**
 * The legacy and reading tools in real Firefox: click by text/selector/index/x,y with the overlay
 * defenses (modal scope, ambiguity payload), the rich-text toolbar guard, keys, waits, forms,
 * the completion probe, frames, shadow DOM and the read-only tools.
 */
import { readdirSync, readFileSync } from "node:fs";
import { callFunction, navigate } from "@webbrain/bidi";
import { waitFor } from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import { buildPageScript, buildRunnerRealmScript, CALL_HANDLE_FUNCTION } from "../src/bundle.js";
import { PageSession, SANDBOX, usePageFixtures } from "./page-session.js";

const env = usePageFixtures();

describe("click by text, selector, index and point", () => {
  it("scopes a text click to the open modal, on both paths", async () => {
    const page = await env.open("/page/modal.html");
    const dispatched = await page.call("click", { text: "Publish" });
    expect(dispatched).toMatchObject({
      success: true,
      scoped_to: 'dialog "Create tag"',
      target: { name: "Publish" },
    });
    const resolved = await page.call("click", { text: "publish", mode: "resolve" });
    expect(resolved).toMatchObject({
      success: true,
      scoped_to: 'dialog "Create tag"',
      runner: { plan: [{}] },
    });
    await page.runResolved(resolved);
    expect(await page.page("window.clicked")).toEqual(["dlg-publish:synthetic", "dlg-publish:trusted"]);
    const missing = await page.call("click", { text: "Release tags" });
    expect(missing).toMatchObject({ success: false, code: "not_found", scoped_to: 'dialog "Create tag"' });
  });

  it("refuses ambiguous text with candidates located by landmark, and takes match_index", async () => {
    const page = await env.open("/page/landmarks.html");
    const result = await page.call("click", { text: "Delete" });
    expect(result).toMatchObject({ success: false, code: "ambiguous", ambiguous: true });
    const candidates = result.candidates as Record<string, unknown>[];
    expect(candidates.map((c) => c.ancestor)).toEqual(['navigation "Sidebar"', 'form "Account"']);
    expect(candidates[0]).toMatchObject({ index: 0, tag: "button", role: "button", text: "Delete" });
    expect(Object.keys(candidates[0] ?? {}).sort()).toEqual([
      "ancestor",
      "cx",
      "cy",
      "index",
      "rect",
      "ref_id",
      "role",
      "tag",
      "text",
    ]);
    expect(await page.page("window.clicked")).toEqual([]);
    expect(await page.call("click", { text: "Delete", match_index: 1 })).toMatchObject({ success: true });
    expect(await page.call("click_ax", { ref_id: candidates[0]?.ref_id })).toMatchObject({ success: true });
    expect(await page.page("window.clicked")).toEqual(["form-delete", "nav-delete"]);
  });

  it("clicks by selector, by index from get_interactive_elements, and at a point on both paths", async () => {
    const page = await env.open("/page/landmarks.html");
    expect(await page.call("click", { selector: "#form-delete" })).toMatchObject({ success: true });
    expect(await page.call("click", { selector: "button" })).toMatchObject({
      success: false,
      code: "ambiguous",
    });
    expect(await page.call("click", { selector: "[[bad" })).toMatchObject({
      success: false,
      code: "bad_params",
    });
    const list = await page.call("get_interactive_elements");
    const elements = list.elements as { index: number; ref_id: number; name: string }[];
    expect(elements.map((e) => e.name)).toEqual(["Delete", "Delete"]);
    expect(await page.call("click", { index: 0 })).toMatchObject({ success: true });
    const rect = await page.page<{ x: number; y: number }>(
      "(() => { const r = document.getElementById('form-delete').getBoundingClientRect(); return { x: Math.round(r.x + 5), y: Math.round(r.y + 5) }; })()",
    );
    expect(await page.call("click", rect)).toMatchObject({ success: true, target: { name: "Delete" } });
    await page.runResolved(await page.call("click", { ...rect, mode: "resolve" }));
    expect(await page.page("window.clicked")).toEqual([
      "form-delete",
      "nav-delete",
      "form-delete",
      "form-delete",
    ]);
    expect(await page.call("click", { x: -5, y: 10 })).toMatchObject({ success: false, code: "bad_params" });
    expect(await page.call("click", {})).toMatchObject({ success: false, code: "bad_params" });
  });
});

describe("rich-text toolbar guard", () => {
  it("refuses to type into a toolbar button and names the editor; typing the editor is proven", async () => {
    const page = await env.open("/page/editor.html");
    const bold = await page.ref('button "Bold"');
    const refused = await page.call("type_ax", { ref_id: bold, value: "Hello" });
    expect(refused).toMatchObject({
      success: false,
      code: "toolbar_target",
      suggested: { role: "textbox", name: "Message body" },
    });
    expect(await page.page("window.inputs")).toBe(0);
    const editor = await page.ref('textbox "Message body"');
    const typed = await page.call("type_ax", { ref_id: editor, value: "Hello team" });
    expect(typed).toMatchObject({ success: true, verified: true });
    expect(await page.page("document.getElementById('body').textContent")).toBe("Hello team");
    const resolved = await page.call("type_ax", { ref_id: editor, value: "Trusted words", mode: "resolve" });
    expect(await page.runResolved(resolved)).toMatchObject({ success: true, verified: true });
    expect(await page.page("document.getElementById('body').textContent")).toBe("Trusted words");
  });
});

describe("keys and typing", () => {
  it("type_text types into the focused field; press_keys Tab moves focus and Enter submits", async () => {
    const page = await env.open("/page/forms.html");
    expect(await page.call("type_text", { text: "x" })).toMatchObject({ success: false, code: "not_found" });
    await page.call("click_ax", { ref_id: await page.ref('textbox "User"') });
    expect(await page.call("type_text", { text: "grace" })).toMatchObject({ success: true, verified: true });
    const tabbed = await page.call("press_keys", { keys: "Tab" });
    expect(tabbed).toMatchObject({ success: true, focused: { name: "Password" } });
    expect(await page.call("type_text", { text: "pw" })).toMatchObject({ success: true });
    await page.call("press_keys", { keys: ["Shift+Tab"] });
    expect(await page.call("press_keys", { keys: "Enter" })).toMatchObject({
      success: true,
      effects: ["Enter: form submitted (requestSubmit)"],
    });
    expect(await page.page("window.submits")).toBe(1);
    expect(await page.page("window.keys")).toEqual(["Tab", "Tab", "Enter"]);
    expect(await page.call("press_keys", { keys: "Hyper+q" })).toMatchObject({
      success: false,
      code: "bad_params",
    });
  });

  it("press_keys resolve returns a key plan that trusted input performs", async () => {
    const page = await env.open("/page/forms.html");
    const user = await page.ref('textbox "User"');
    const resolved = await page.call("press_keys", { keys: ["a", "b"], ref_id: user, mode: "resolve" });
    expect(resolved).toMatchObject({
      success: true,
      focused: { ref_id: user },
      runner: {
        plan: [{ kind: "keys", keys: ["a", "b"] }],
        verify: { action: "verify_keys", params: { keys: ["a", "b"] } },
      },
    });
    const verified = await page.runResolved(resolved);
    expect(await page.page("document.getElementById('user').value")).toBe("ab");
    expect(verified).toMatchObject({
      success: true,
      pressed: ["a", "b"],
      effect: { changed: true, changes: ['value is now "ab"'] },
      focused: { ref_id: user },
    });
  });

  it("Escape closes an open modal <dialog>; probe_completion sees dialogs, forms and live messages", async () => {
    const page = await env.open("/page/forms.html");
    await page.page("document.getElementById('dlg').showModal()");
    const probe = await page.call("probe_completion");
    expect(probe).toMatchObject({ success: true, open_dialog: true });
    expect((probe.forms as { label: string; fields: number; filled: number }[])[0]).toMatchObject({
      label: 'form "Sign in"',
      fields: 3,
      filled: 0,
    });
    const tree = await page.tree();
    expect(tree.split("\n")[0]).toMatch(/^dialog modal$/);
    await page.call("press_keys", { keys: "Escape" });
    const after = await page.call("probe_completion");
    expect(after).toMatchObject({ open_dialog: false, dialogs: [] });
    await page.call("set_field", { ref_id: await page.ref('"Password"'), value: "pw" });
    await page.call("set_field", { ref_id: await page.ref('"User"'), value: "lin", submit: true });
    const done = await page.call("probe_completion");
    expect(done.messages).toEqual([{ role: "status", text: "Signed in as lin" }]);
  });
});

describe("waits", () => {
  it("wait_for_element sees an element that appears later, and times out with a typed error", async () => {
    const page = await env.open("/page/forms.html");
    // The wait is sent first and the page adds the element after it, so the element is absent when
    // the wait starts. (Submitting the form, whose welcome line comes on a 300 ms timer, raced a
    // loaded machine: the line was sometimes there before the wait began.)
    const waiting = page.call("wait_for_element", { selector: "#late", timeout_ms: 5000 });
    await page.page(
      "setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Arrived late'; document.body.append(p); }, 100)",
    );
    const found = await waiting;
    expect(found).toMatchObject({ success: true, state: "visible", element: { name: expect.any(String) } });
    expect(found.elapsed_ms as number).toBeGreaterThan(0);
    const byText = await page.call("wait_for_element", { text: "Arrived late" });
    expect(byText.success).toBe(true);
    const missing = await page.call("wait_for_element", { selector: "#never", timeout_ms: 200 });
    expect(missing).toMatchObject({ success: false, code: "timeout" });
  });

  it("wait_for_stable waits out a burst of DOM changes and gives up on endless ones", async () => {
    const page = await env.open("/page/forms.html");
    await page.page(
      "(() => { let n = 0; const t = setInterval(() => { document.body.append(document.createElement('i')); if (++n === 5) clearInterval(t); }, 50); })()",
    );
    const stable = await page.call("wait_for_stable", { quiet_ms: 200, timeout_ms: 3000 });
    expect(stable).toMatchObject({ success: true, stable: true });
    expect(stable.mutations as number).toBeGreaterThanOrEqual(1);
    await page.page("setInterval(() => document.body.append(document.createElement('i')), 20)");
    const busy = await page.call("wait_for_stable", { quiet_ms: 200, timeout_ms: 600 });
    expect(busy).toMatchObject({ success: false, code: "timeout", stable: false });
  });

  it("wait_for_stable does not count a starved tab's stretch as quiet", async () => {
    // An animated page (a change every frame) whose tab is starved of CPU, as on a loaded
    // machine: the wait's timer may wake before the page's next frame, after a stretch it did not
    // watch. That stretch is not quiet: the page never settles, and the wait says so.
    const page = await env.open("/page/forms.html");
    await page.page(
      "(() => { let last = performance.now(); window.maxGap = 0; const tick = () => { const now = performance.now(); window.maxGap = Math.max(window.maxGap, now - last); last = now; document.body.append(document.createElement('i')); requestAnimationFrame(tick); }; requestAnimationFrame(tick); })()",
    );
    const animated = await starvedWhile(page.call("wait_for_stable", { quiet_ms: 300, timeout_ms: 3000 }));
    expect(animated).toMatchObject({ success: false, code: "timeout", stable: false });
    expect(animated.mutations as number).toBeGreaterThan(0);
    // The tab really was starved: the page's frames stopped for most of a stop.
    expect(Number(await page.page("window.maxGap"))).toBeGreaterThan(STARVE.stopMs * 0.8);

    // A quiet page in a tab starved for the whole wait: nothing was watched, and the error says
    // that rather than that the page kept changing.
    const quiet = await env.open("/page/tree-basics.html");
    const starved = await starvedWhile(quiet.call("wait_for_stable", { quiet_ms: 300, timeout_ms: 2000 }));
    expect(starved).toMatchObject({ success: false, code: "timeout", stable: false, mutations: 0 });
    expect(starved.error).toMatch(
      /could not watch the page for a quiet 300 ms within 2000 ms: the tab was too busy/,
    );
    // Once the tab runs again, the same quiet page settles: a late wake delays the answer, never
    // withholds it.
    expect(await quiet.call("wait_for_stable", { quiet_ms: 300, timeout_ms: 3000 })).toMatchObject({
      success: true,
      stable: true,
    });
    // In a background tab Firefox wakes timers about once a second, every one of them late by
    // design: the quiet page still settles there (scheduled jobs replay in such tabs).
    await env.firefox.newTab();
    expect(await quiet.page("document.visibilityState")).toBe("hidden");
    expect(await quiet.call("wait_for_stable", { quiet_ms: 300, timeout_ms: 5000 })).toMatchObject({
      success: true,
      stable: true,
    });
  });
});

/** A starved tab: its content processes stopped for `stopMs`, then let run for `runMs`, again and again. */
const STARVE = { stopMs: 600, runMs: 60 };

/** The Firefox content processes that run web pages (Fission may use several). */
function tabProcesses(browserPid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      // Firefox rewrites a content process's command line into one space-separated string.
      args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split(/[\0 ]/);
    } catch {
      continue;
    }
    const parent = args[args.indexOf("-parentPid") + 1];
    if (args.includes("-isForBrowser") && parent === String(browserPid)) pids.push(Number(entry));
  }
  return pids;
}

/** Starves the file's Firefox's tabs until `call` answers; the processes always run again after. */
async function starvedWhile<T>(call: Promise<T>): Promise<T> {
  let answered = false;
  const result = call.finally(() => {
    answered = true;
  });
  const pids = tabProcesses(env.firefox.browser.pid);
  expect(pids.length).toBeGreaterThan(0);
  const signal = (name: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        // a process that ended meanwhile
      }
    }
  };
  try {
    while (!answered) {
      signal("SIGSTOP");
      await new Promise((resolve) => setTimeout(resolve, STARVE.stopMs));
      signal("SIGCONT");
      await Promise.race([result, new Promise((resolve) => setTimeout(resolve, STARVE.runMs))]);
    }
  } finally {
    signal("SIGCONT");
  }
  return result;
}

describe("forms, frames, shadow DOM and reading", () => {
  it("verify_form lists field values, missing required fields and validity", async () => {
    const page = await env.open("/page/forms.html");
    await page.call("type_ax", { ref_id: await page.ref('"User"'), value: "ada" });
    const report = await page.call("verify_form");
    const form = (
      report.forms as { form: string; fields: Record<string, unknown>[]; missing_required: number[] }[]
    )[0];
    expect(form?.form).toBe('form "Sign in"');
    expect(form?.fields.map((f) => [f.name, f.value])).toEqual([
      ["User", "ada"],
      ["Password", ""],
      ["Remember me", "on"],
    ]);
    expect(form?.missing_required).toEqual([await page.ref('"Password"')]);
  });

  it("get_frames and iframe_read: same-origin read with matchIndex, cross-origin answered as such", async () => {
    const page = await env.open("/page/frames.html");
    // The same-origin frame's document has loaded once it reads with its own title.
    await waitFor(async () => (await page.call("iframe_read", { index: 0 })).title === "Coupon frame", {
      message: "the Coupon frame never loaded",
    });
    const frames = await page.call("get_frames");
    const list = frames.frames as { index: number; title: string; same_origin: boolean }[];
    expect(list.map((f) => [f.title, f.same_origin])).toEqual([
      ["Coupon", true],
      ["Payment", false],
    ]);
    const read = await page.call("iframe_read", { index: 0 });
    expect(read).toMatchObject({ success: true, title: "Coupon frame" });
    expect(read.fields).toEqual([
      { ref_id: expect.any(Number), label: "Coupon code", value: "", selector: "#code", matchIndex: 0 },
    ]);
    const cross = await page.call("iframe_read", { index: 1 });
    expect(cross).toMatchObject({ success: false, code: "cross_origin", cross_origin: true });
    expect(await page.call("iframe_read", {})).toMatchObject({ success: false, code: "bad_params" });
  });

  it("get_shadow_dom prints open roots; click works inside them on both paths", async () => {
    const page = await env.open("/page/shadow.html");
    const shadow = await page.call("get_shadow_dom");
    const hosts = shadow.hosts as { tag: string; mode: string; tree: string }[];
    expect(hosts[0]).toMatchObject({ tag: "open-card", mode: "open" });
    expect(hosts[0]?.tree).toContain('button "Open action"');
    const button = await page.ref('button "Open action"');
    await page.call("click_ax", { ref_id: button });
    await page.runResolved(await page.call("click_ax", { ref_id: button, mode: "resolve" }));
    expect(await page.page("window.clicked")).toEqual(["open:false", "open:true"]);
  });

  it("read_page, extract_data, get_selection, scroll, read_page_source, inspect_element_styles", async () => {
    const page = await env.open("/page/forms.html");
    const read = await page.call("read_page");
    expect(read).toMatchObject({ success: true, title: "Sign in", truncated: false });
    expect(read.text).toContain("Select this sentence.");
    const short = await page.call("read_page", { max_chars: 10 });
    expect(short).toMatchObject({ truncated: true });
    expect(short.text).toMatch(/truncated: \d+ more chars/);
    const tables = await page.call("extract_data", { type: "tables" });
    expect(tables.items).toEqual([
      [
        ["Plan", "Price"],
        ["Free", "0"],
        ["Pro", "12"],
      ],
    ]);
    const links = await page.call("extract_data", { type: "links" });
    expect(links.items).toEqual([{ text: "Terms", href: env.fixtures.url("/page/forms.html#terms") }]);
    await page.page("getSelection().selectAllChildren(document.getElementById('sentence'))");
    expect(await page.call("get_selection")).toMatchObject({ success: true, text: "Select this sentence." });
    const down = await page.call("scroll", { direction: "down", amount: 500 });
    expect(down).toMatchObject({ success: true, scroll_y: 500, at_top: false });
    expect(await page.call("scroll", { to: "bottom" })).toMatchObject({ at_bottom: true });
    const source = await page.call("read_page_source", { max_chars: 50 });
    expect(source).toMatchObject({ success: true, truncated: true });
    expect(source.text).toMatch(/^<html lang="en">/);
    const styles = await page.call("inspect_element_styles", { selector: "#tip" });
    expect(styles).toMatchObject({ success: true, visible: false, styles: { display: "none" } });
  });

  it("answers unknown actions and malformed params with typed errors", async () => {
    const page = await env.open("/page/forms.html");
    expect(await page.call("fly_to_moon")).toMatchObject({ success: false, code: "unknown_action" });
    const bad = await page.call("click_ax", { ref_id: "Save" });
    expect(bad).toMatchObject({ success: false, code: "bad_params" });
    expect(bad.error).toContain("ref number as printed in the tree");
    const notObject = await callFunction<Record<string, unknown>>(
      page.client,
      page.target,
      CALL_HANDLE_FUNCTION,
      ["read_page", 5],
    );
    expect(notObject).toMatchObject({
      success: false,
      code: "bad_params",
      error: "read_page: params must be a JSON object, got number",
    });
    // The JSON-text door answers the same errors as text, and bad JSON text as bad_params.
    const asText = (action: string, paramsJson: string) =>
      callFunction<string>(
        page.client,
        page.target,
        "(action, paramsJson) => globalThis.__webbrainPage.handleJson(action, paramsJson)",
        [action, paramsJson],
      );
    expect(JSON.parse(await asText("read_page", "{not json"))).toEqual({
      success: false,
      code: "bad_params",
      error: "read_page: params are not valid JSON text",
    });
    expect(JSON.parse(await asText("fly_to_moon", "{}"))).toMatchObject({ code: "unknown_action" });
  });
});

describe("injection", () => {
  it("runs as a sandboxed preload script, hidden from the page, idempotent, refs unique across pages", async () => {
    const context = await env.firefox.newTab();
    // What the runner preloads: its realm code (the call door), then the page layer.
    const script = `${await buildRunnerRealmScript()}\n${await buildPageScript()}`;
    const { script: preload } = await env.firefox.client.send("script.addPreloadScript", {
      functionDeclaration: `() => { ${script} }`,
      sandbox: SANDBOX,
      contexts: [context],
    });
    try {
      const page = new PageSession(env.firefox.client, context);
      await navigate(env.firefox.client, context, env.fixtures.url("/page/landmarks.html"));
      const first = await page.call("get_accessibility_tree");
      expect(first.success).toBe(true);
      expect(await page.page("typeof globalThis.__webbrainPage")).toBe("undefined");
      const sidebarDelete = await page.ref('button "Delete"');
      await page.inject(); // a second injection keeps the installed instance and its refs
      expect(await page.ref('button "Delete"')).toBe(sidebarDelete);
      const lastRef = first.meta?.last_ref ?? 0;
      await navigate(env.firefox.client, context, env.fixtures.url("/page/forms.html"));
      const stale = await page.call("click_ax", { ref_id: sidebarDelete, ref_floor: lastRef });
      expect(stale).toMatchObject({ success: false, code: "stale_ref" });
      const second = await page.tree();
      const refs = Array.from(second.matchAll(/\[(\d+)\]/g), (m) => Number(m[1]));
      expect(refs.length).toBeGreaterThan(0);
      expect(Math.min(...refs)).toBeGreaterThan(lastRef);
    } finally {
      await env.firefox.client.send("script.removePreloadScript", { script: preload });
    }
  });
});

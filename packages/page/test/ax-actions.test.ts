/**
 * click_ax, type_ax, set_field, hover and drag_drop on both paths in real Firefox:
 * dispatch (synthetic events here) and resolve (trusted BiDi input pressed by the test, then the
 * verify call). Includes the React controlled form, the billing combobox flow and stale refs.
 */
import { describe, expect, it } from "vitest";
import type { PageAnswer } from "../src/protocol.js";
import { usePageFixtures } from "./page-session.js";
import { buildReactFixture, reactBundleRoute } from "./react-fixture.js";

const env = usePageFixtures(async () => ({ routes: reactBundleRoute(await buildReactFixture()) }));

describe("click_ax", () => {
  it("dispatch clicks with synthetic events and reports the effect", async () => {
    const page = await env.open("/page/modal.html");
    const cancel = await page.ref('button "Cancel"');
    const result = await page.call("click_ax", { ref_id: cancel });
    expect(result).toMatchObject({
      success: true,
      target: { ref_id: cancel, role: "button", name: "Cancel" },
    });
    expect(result.effect).toMatchObject({ changed: true });
    expect((result.effect as { changes: string[] }).changes).toContain(
      "the element was removed from the page",
    );
    expect(await page.page("window.clicked")).toEqual(["dlg-cancel:synthetic"]);
  });

  it("resolve returns the element and its point; a trusted click there lands and verify_effect sees it", async () => {
    const page = await env.open("/page/modal.html");
    const publish = await page.ref('button "Publish"'); // the dialog is printed first
    const resolved = await page.call("click_ax", { ref_id: publish, mode: "resolve" });
    expect(resolved).toMatchObject({ success: true, target: { ref_id: publish, name: "Publish" } });
    expect((resolved.runner?.element as { sharedId?: string } | undefined)?.sharedId).toBeTypeOf("string");
    expect(resolved.runner?.plan).toEqual([{ kind: "click", x: expect.any(Number), y: expect.any(Number) }]);
    expect(resolved.runner?.verify).toMatchObject({
      action: "verify_effect",
      params: { token: expect.any(String) },
    });
    // handleJson answers the same resolve as JSON text, without the element (text cannot hold it),
    // and synchronously: a plain string even when Firefox is told not to await a promise.
    const sync = await page.client.send("script.callFunction", {
      functionDeclaration: "(paramsJson) => globalThis.__webbrainPage.handleJson('click_ax', paramsJson)",
      arguments: [{ type: "string", value: JSON.stringify({ ref_id: publish, mode: "resolve" }) }],
      awaitPromise: false,
      target: page.target,
    });
    expect(sync.type === "success" && sync.result.type).toBe("string");
    const asText = JSON.parse(
      sync.type === "success" && sync.result.type === "string" ? sync.result.value : "null",
    ) as PageAnswer;
    expect(asText).toMatchObject({
      success: true,
      details: { target: { ref_id: publish } },
      runner: { plan: resolved.runner?.plan },
    });
    expect(asText.success && asText.runner).not.toHaveProperty("element");
    const verified = await page.runResolved(resolved);
    expect(verified.success).toBe(true);
    expect(await page.page("window.clicked")).toEqual(["dlg-publish:trusted"]);
  });

  it("refuses a covered target on both paths, naming what covers it; force clicks anyway", async () => {
    const page = await env.open("/page/occluder.html");
    const subscribe = await page.ref('button "Subscribe"');
    for (const mode of ["dispatch", "resolve"]) {
      const result = await page.call("click_ax", { ref_id: subscribe, mode });
      expect(result).toMatchObject({ success: false, code: "occluded", occluded: true });
      expect(result.occludedBy).toMatchObject({ container: 'region "Cookie notice"' });
      expect(result.error).toContain("force: true");
    }
    expect(await page.page("window.clicked")).toEqual([]);
    const forced = await page.call("click_ax", { ref_id: subscribe, force: true });
    expect(forced.success).toBe(true);
    expect(await page.page("window.clicked")).toEqual(["subscribe"]);
  });

  it("clicks what is in view where it is, and centres a target a sticky header covers", async () => {
    for (const mode of ["dispatch", "resolve"]) {
      const page = await env.open("/page/sticky-header.html");
      await page.page("window.scrollTo(0, 1000)");
      const preview = await page.ref('button "Preview"'); // in view, uncovered
      const save = await page.ref('button "Save changes"'); // wholly in view, under the header
      const clicked = await page.call("click_ax", { ref_id: preview, mode });
      expect(clicked.success).toBe(true);
      if (mode === "resolve") await page.runResolved(clicked);
      expect(await page.page("window.scrollY")).toBe(1000);
      const saved = await page.call("click_ax", { ref_id: save, mode });
      expect(saved.success).toBe(true);
      if (mode === "resolve") await page.runResolved(saved);
      expect(await page.page("window.scrollY")).toBeLessThan(1000);
      const how = mode === "resolve" ? "trusted" : "synthetic";
      expect(await page.page("window.clicked")).toEqual([`preview:${how}`, `save:${how}`]);
    }
  });

  it("a stale ref acts on nothing, on both paths, and suggests the new element", async () => {
    const page = await env.open("/page/rerender.html");
    const old = await page.ref('button "Remove Alpha"');
    await page.page("window.rerender()");
    for (const mode of ["dispatch", "resolve"]) {
      const result = await page.call("click_ax", { ref_id: old, mode });
      expect(result).toMatchObject({
        success: false,
        code: "stale_ref",
        ref_id: old,
        was: { role: "button", name: "Remove Alpha" },
      });
      expect(result.error).toContain("stale");
      const suggestions = result.suggestions as { ref_id: number; name: string }[];
      expect(suggestions).toHaveLength(1);
      expect(suggestions[0]?.ref_id).not.toBe(old);
      expect(suggestions[0]?.name).toBe("Remove Alpha");
    }
    expect(await page.page("window.removed")).toEqual([]);
    const unknown = await page.call("click_ax", { ref_id: 99_999 });
    expect(unknown).toMatchObject({ success: false, code: "stale_ref" });
  });

  it("refuses disabled elements with a clear error", async () => {
    const page = await env.open("/page/tree-basics.html");
    const ref = await page.ref('"Delete account"');
    const result = await page.call("click_ax", { ref_id: ref });
    expect(result).toMatchObject({ success: false, code: "disabled" });
  });
});

describe("type_ax and the React controlled form", () => {
  it("dispatch: the native setter reaches React state; select and checkbox too; the submit sees it all", async () => {
    const page = await env.open("/page/react-form/index.html");
    const name = await page.ref('textbox "Name"');
    const typed = await page.call("type_ax", { ref_id: name, value: "Ada" });
    expect(typed).toMatchObject({ success: true, verified: true, value: "Ada", method: "value_setter" });
    expect(await page.page("document.getElementById('echo').textContent")).toBe("Hello Ada");
    expect(
      await page.call("type_ax", { ref_id: await page.ref('"Email"'), value: "ada@example.com" }),
    ).toMatchObject({ success: true });
    expect(
      await page.call("type_ax", { ref_id: await page.ref('combobox "Plan"'), value: "Pro" }),
    ).toMatchObject({ success: true, verified: true });
    expect(await page.tree()).toMatch(/button "Create account" disabled/);
    await page.call("click_ax", { ref_id: await page.ref('checkbox "I agree"') });
    const submit = await page.ref('button "Create account"');
    expect(await page.tree()).not.toMatch(/button "Create account" disabled/);
    await page.call("click_ax", { ref_id: submit });
    expect(await page.page("document.querySelector('[role=status]').textContent")).toBe(
      "Submitted Ada <ada@example.com> plan=pro agree=true",
    );
  });

  it("resolve: trusted typing after the plan, then check_value proves the text landed", async () => {
    const page = await env.open("/page/react-form/index.html");
    const name = await page.ref('textbox "Name"');
    await page.call("type_ax", { ref_id: name, value: "old text" });
    const resolved = await page.call("type_ax", { ref_id: name, value: "Grace", mode: "resolve" });
    expect(resolved.runner?.plan).toEqual([
      { kind: "click", x: expect.any(Number), y: expect.any(Number) },
      { kind: "keys", keys: ["Control+a"] },
      { kind: "text", text: "Grace" },
    ]);
    expect(resolved.runner?.verify).toEqual({
      action: "check_value",
      params: { ref_id: name, expected: "Grace", replace: true },
    });
    const verified = await page.runResolved(resolved);
    expect(verified).toMatchObject({ success: true, verified: true, value: "Grace" });
    expect(await page.page("document.getElementById('echo').textContent")).toBe("Hello Grace");
  });

  it("check_value refuses without positive proof", async () => {
    const page = await env.open("/page/react-form/index.html");
    const name = await page.ref('textbox "Name"');
    const result = await page.call("check_value", { ref_id: name, expected: "never typed" });
    expect(result).toMatchObject({ success: false, code: "unverified", verified: false, value: "" });
  });
});

describe("set_field", () => {
  it("dispatch: billing combobox commits with ArrowDown+Enter, reveals Every N months; the whole product saves", async () => {
    const page = await env.open("/page/combobox.html");
    await page.call("type_ax", { ref_id: await page.ref('textbox "Name"'), value: "Plan B" });
    await page.call("type_ax", { ref_id: await page.ref('textbox "Price"'), value: "500" });
    const currency = await page.call("set_field", {
      ref_id: await page.ref('combobox "Currency"'),
      value: "CNY",
    });
    expect(currency).toMatchObject({ success: true, verified: true, committed: "CNY" });
    const billing = await page.ref('combobox "Billing period"');
    const result = await page.call("set_field", { ref_id: billing, value: "Custom", submit: true });
    expect(result).toMatchObject({ success: true, combobox: true, committed: "Custom", expanded: false });
    const tree = await page.tree();
    expect(tree).toMatch(/\[\d+\] spinbutton "Every" value="1"/);
    expect(tree).toMatch(/combobox "Currency" value="CNY"/);
    await page.call("type_ax", { ref_id: await page.ref('spinbutton "Every"'), value: "2" });
    await page.call("click_ax", { ref_id: await page.ref('button "Save product"') });
    expect(await page.page("document.getElementById('result').textContent")).toBe(
      "Saved: Plan B 500 CNY billing=Custom every=2",
    );
  });

  it("resolve: the same flow with trusted keys and clicks", async () => {
    const page = await env.open("/page/combobox.html");
    const billing = await page.ref('combobox "Billing period"');
    const resolved = await page.call("set_field", {
      ref_id: billing,
      value: "Custom",
      submit: true,
      mode: "resolve",
    });
    const kinds = (resolved.runner?.plan ?? []).map((s) => ("keys" in s ? s.keys.join() : s.kind));
    expect(kinds).toEqual(["click", "Control+a", "text", "pause", "ArrowDown", "pause", "Enter"]);
    const effect = await page.runResolved(resolved);
    expect(effect).toMatchObject({ success: true });
    expect(await page.page("document.getElementById('billing').value")).toBe("Custom");
    expect(await page.tree()).toMatch(/spinbutton "Every" value="1"/);

    const currency = await page.ref('combobox "Currency"');
    const opening = await page.call("set_field", { ref_id: currency, value: "EUR", mode: "resolve" });
    expect(opening.runner?.verify).toMatchObject({ action: "set_field", params: { phase: "choose" } });
    const chosen = await page.runResolved(opening);
    expect(chosen).toMatchObject({ success: true, verified: true, value: "EUR" });
  });

  it("picks several options of a multi-select from a comma-separated value, and names what does not match", async () => {
    const page = await env.open("/page/multi-select.html");
    const list = await page.ref('listbox "Countries"');
    const picked = await page.call("set_field", { ref_id: list, value: "Mauritania, Brazil" });
    expect(picked).toMatchObject({ success: true, verified: true, value: "Brazil, Mauritania" });
    expect(
      await page.page("Array.from(document.getElementById('countries').selectedOptions, (o) => o.text)"),
    ).toEqual(["Brazil", "Mauritania"]);
    expect(await page.page("document.getElementById('changes').textContent")).toBe("1");
    const missing = await page.call("set_field", { ref_id: list, value: "Chile, Atlantis" });
    expect(missing).toMatchObject({ success: false, code: "not_found" });
    expect(String(missing.error)).toContain('"Atlantis"');
  });

  it("submits a plain form with requestSubmit, but not while required fields are empty", async () => {
    const page = await env.open("/page/forms.html");
    const user = await page.ref('textbox "User"');
    const blocked = await page.call("set_field", { ref_id: user, value: "ada", submit: true });
    expect(blocked).toMatchObject({ success: true, submitted: false });
    expect((blocked.invalid_fields as { name: string }[]).map((f) => f.name)).toEqual(["Password"]);
    expect(await page.page("window.submits")).toBe(0);
    await page.call("type_ax", { ref_id: await page.ref('textbox "Password"'), value: "pw" });
    const sent = await page.call("set_field", { ref_id: user, value: "ada", submit: true });
    expect(sent).toMatchObject({ success: true, submitted: true });
    expect(await page.page("document.getElementById('status').textContent")).toBe("Signed in as ada");
  });
});

describe("hover and drag_drop", () => {
  it("hover reveals a tooltip on both paths", async () => {
    for (const mode of ["dispatch", "resolve"] as const) {
      const page = await env.open("/page/forms.html");
      const help = await page.ref('clickable "Help"');
      const result = await page.call("hover", { ref_id: help, mode });
      if (mode === "resolve") await page.runResolved(result);
      else expect(result.success).toBe(true);
      expect(await page.page("document.getElementById('tip').hidden")).toBe(false);
    }
  });

  it("drag_drop: HTML5 and pointer drags by dispatch, a trusted pointer drag by resolve", async () => {
    const page = await env.open("/page/dragdrop.html");
    const zone = await page.ref('region "Done column"');
    const html5 = await page.call("drag_drop", {
      from_ref_id: await page.ref('button "Task A"'),
      to_ref_id: zone,
    });
    expect(html5.success).toBe(true);
    await page.call("drag_drop", { from_ref_id: await page.ref('button "Task B"'), to_ref_id: zone });
    const resolved = await page.call("drag_drop", {
      from_ref_id: await page.ref('button "Task B"'),
      to_ref_id: zone,
      mode: "resolve",
    });
    expect(resolved.runner?.plan?.[0]?.kind).toBe("drag");
    await page.runResolved(resolved);
    expect(await page.page("window.drops")).toEqual([
      "drop:html5-card",
      "pointer:pointer-card:false",
      "pointer:pointer-card:true",
    ]);
    const missing = await page.call("drag_drop", { from_ref_id: zone });
    expect(missing).toMatchObject({ success: false, code: "bad_params" });
  });
});

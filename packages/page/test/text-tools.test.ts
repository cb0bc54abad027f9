/**
 * select_text, copy and paste with keys, scroll inside an element, and drag_drop by an offset
 * from a resize corner, in real Firefox on both paths: dispatch (the add-on's synthetic events)
 * and resolve (the plan pressed with trusted input, as the runner does).
 */
import { describe, expect, it } from "vitest";
import { usePageFixtures } from "./page-session.js";

const env = usePageFixtures();

describe("select_text", () => {
  it("selects page text across elements and whitespace, or an element's whole text", async () => {
    const page = await env.open("/page/text-tools.html");
    const across = await page.call("select_text", { text: "Bold part and the end." });
    expect(across).toMatchObject({ success: true, in_field: false });
    expect(String(across.selected).replace(/\s+/g, " ")).toBe("Bold part and the end.");
    expect(await page.page("getSelection().toString()")).toBe(across.selected);
    const whole = await page.call("select_text", { ref_id: await page.ref("First sentence here") });
    expect(whole).toMatchObject({ success: true });
    expect(await page.page("getSelection().toString().replace(/\\s+/g, ' ')")).toBe(
      "First sentence here. Bold part and the end.",
    );
    const missing = await page.call("select_text", { text: "not on this page" });
    expect(missing).toMatchObject({ success: false, code: "not_found" });
    expect(await page.call("select_text", {})).toMatchObject({ success: false, code: "bad_params" });
  });

  it("selects part of a field's value with the field focused", async () => {
    const page = await env.open("/page/text-tools.html");
    const notes = await page.ref('textbox "Notes"');
    const part = await page.call("select_text", { ref_id: notes, text: "THREE four" });
    expect(part).toMatchObject({ success: true, in_field: true, selected: "three four", start: 8, end: 18 });
    expect(
      await page.page(
        "[document.activeElement.id, document.activeElement.selectionStart, document.activeElement.selectionEnd]",
      ),
    ).toEqual(["notes", 8, 18]);
    const all = await page.call("select_text", { ref_id: notes });
    expect(String(all.selected).endsWith("thirty last")).toBe(true);
  });
});

describe("copy and paste with Control+c / Control+v", () => {
  it("copies a field's selection into another field with trusted keys (the runner's path)", async () => {
    const page = await env.open("/page/text-tools.html");
    await page.call("select_text", { ref_id: await page.ref('textbox "Notes"'), text: "five six" });
    await page.runResolved(await page.call("press_keys", { keys: "Control+c", mode: "resolve" }));
    await page.call("click_ax", { ref_id: await page.ref('textbox "Answer"') });
    await page.runResolved(await page.call("press_keys", { keys: "Control+v", mode: "resolve" }));
    expect(await page.page("document.getElementById('answer').value")).toBe("five six");
    expect(await page.page("window.events")).toEqual(["copy:true", "paste:true"]);
  });

  it("copies and pastes with synthetic keys (the add-on's path), saying where the text went", async () => {
    const page = await env.open("/page/text-tools.html");
    await page.call("select_text", { ref_id: await page.ref('textbox "Notes"'), text: "seven eight" });
    const copied = await page.call("press_keys", { keys: "Control+c" });
    expect(copied).toMatchObject({ success: true });
    expect(String(copied.effects)).toMatch(/copied 11 chars/);
    await page.call("click_ax", { ref_id: await page.ref('textbox "Answer"') });
    const pasted = await page.call("press_keys", { keys: "Control+v" });
    expect(String(pasted.effects)).toMatch(/pasted 11 chars/);
    expect(await page.page("document.getElementById('answer').value")).toBe("seven eight");
  });
});

describe("scroll inside an element", () => {
  it("scrolls a textarea to its end and back, and says where it stands", async () => {
    const page = await env.open("/page/text-tools.html");
    const notes = await page.ref('textbox "Notes"');
    const bottom = await page.call("scroll", { ref_id: notes, to: "bottom" });
    expect(bottom).toMatchObject({
      success: true,
      at_bottom: true,
      at_top: false,
      scrolled: { ref_id: notes },
    });
    expect(bottom.scroll_top).toBeGreaterThan(0);
    expect(await page.page("document.getElementById('notes').scrollTop")).toBe(bottom.scroll_top);
    const up = await page.call("scroll", { ref_id: notes, direction: "up", amount: 10 });
    expect(up).toMatchObject({ at_bottom: false, scroll_top: Number(bottom.scroll_top) - 10 });
    expect(await page.call("scroll", { ref_id: notes, to: "top" })).toMatchObject({ at_top: true });
    // A ref alone still scrolls the element into view, as before.
    expect(await page.call("scroll", { ref_id: notes })).toMatchObject({ success: true, scroll_y: 0 });
    const flat = await page.call("scroll", { ref_id: await page.ref('textbox "Answer"'), to: "bottom" });
    expect(flat).toMatchObject({ success: false, code: "not_found" });
  });

  it("lets a page that waits for its disabled agreement box to be read see the scroll", async () => {
    const page = await env.open("/page/text-tools.html");
    expect(await page.page("document.getElementById('sign').disabled")).toBe(true);
    const result = await page.call("scroll", { ref_id: await page.ref('textbox "Agreement"'), to: "bottom" });
    expect(result).toMatchObject({ success: true, at_bottom: true });
    expect(await page.page("document.getElementById('sign').disabled")).toBe(false);
  });
});

describe("drag_drop by an offset from the resize corner", () => {
  const size = (id: string) =>
    `(() => { const r = document.getElementById('${id}').getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; })()`;

  it("drags a page's own resize handle, by dispatch and with trusted input", async () => {
    const page = await env.open("/page/text-tools.html");
    const panel = await page.ref('region "Panel"');
    const [width, height] = await page.page<[number, number]>(size("panel"));
    const dispatched = await page.call("drag_drop", { from_ref_id: panel, handle: "bottom_right", dy: 30 });
    expect(dispatched).toMatchObject({ success: true, moved_by: { dx: 0, dy: 30 } });
    expect(dispatched.effect).toMatchObject({
      changes: [`size changed from ${width}x${height} to ${width}x${(height ?? 0) + 30} px`],
    });
    expect(await page.page(size("panel"))).toEqual([width, (height ?? 0) + 30]);
    const resolved = await page.call("drag_drop", {
      from_ref_id: panel,
      handle: "bottom_right",
      dx: 40,
      mode: "resolve",
    });
    const verified = await page.runResolved(resolved);
    expect(String(verified.effect && JSON.stringify(verified.effect))).toContain("size changed");
    expect(await page.page(size("panel"))).toEqual([(width ?? 0) + 40, (height ?? 0) + 30]);
    expect(await page.page("window.events")).toEqual(["resized:false", "resized:true"]);
  });

  it("resizes a textarea by the browser's own resizer, with trusted input and by dispatch", async () => {
    const page = await env.open("/page/text-tools.html");
    const sizable = await page.ref('textbox "Sizable"');
    const [, height] = await page.page<[number, number]>(size("sizable"));
    await page.runResolved(
      await page.call("drag_drop", { from_ref_id: sizable, handle: "bottom_right", dy: 40, mode: "resolve" }),
    );
    const [, trusted] = await page.page<[number, number]>(size("sizable"));
    expect(trusted).toBeGreaterThan((height ?? 0) + 30);
    await page.call("drag_drop", { from_ref_id: sizable, handle: "bottom_right", dy: 20 });
    expect(await page.page<[number, number]>(size("sizable"))).toEqual([expect.any(Number), trusted + 20]);
  });

  it("still needs a target or an offset", async () => {
    const page = await env.open("/page/text-tools.html");
    const panel = await page.ref('region "Panel"');
    expect(await page.call("drag_drop", { from_ref_id: panel })).toMatchObject({
      success: false,
      code: "bad_params",
    });
  });
});

/**
 * What a filmstrip page (agent/trace-filmstrip.ts) shows a person, read in Firefox: every frame
 * picked in turn by its label in the strip, as a person scrubs it. One probe for both ways the
 * page is seen: the runner's `trace show --html` file, and the add-on's traces page (its frame
 * and its exported file).
 */
import type { BidiClient } from "@webbrain/bidi";

export interface FilmstripView {
  frames: number;
  scripts: number;
  /** Resources the page loaded (a self-contained page loads none). */
  loads: number;
  imagesDecoded: boolean;
  /** Per frame, picked in the strip: which frame showed, its heading, and its box if any. */
  picked: {
    shown: string[];
    heading: string;
    /** The action's box as a share of the screenshot it is drawn on. */
    box?: { left: number; top: number; width: number; height: number };
    typed?: string;
  }[];
}

const FILMSTRIP_VIEW_EXPRESSION = `(() => {
  const frames = [...document.querySelectorAll("section.frame")];
  const picked = [...document.querySelectorAll("nav.strip label")].map((label) => {
    label.click();
    const shown = frames.filter((f) => getComputedStyle(f).display !== "none");
    const frame = shown[0];
    const img = frame?.querySelector(".shot img");
    const box = frame?.querySelector(".box");
    const share = (r, of) => ({ left: (r.left - of.left) / of.width, top: (r.top - of.top) / of.height,
      width: r.width / of.width, height: r.height / of.height });
    return {
      shown: shown.map((f) => f.id),
      heading: frame?.querySelector("h2")?.textContent ?? "",
      ...(box && img ? { box: share(box.getBoundingClientRect(), img.getBoundingClientRect()) } : {}),
      ...(frame?.querySelector(".typed") ? { typed: frame.querySelector(".typed").textContent } : {}),
    };
  });
  return JSON.stringify({
    frames: frames.length,
    scripts: document.scripts.length,
    loads: performance.getEntriesByType("resource").length,
    imagesDecoded: [...document.images].every((i) => i.complete && i.naturalWidth > 0),
    picked,
  });
})()`;

/**
 * Reads the filmstrip shown in `context`. `sandbox` evaluates in a BiDi sandbox realm: the
 * add-on's frame is sandboxed without scripts, where the page's own realm runs none.
 */
export async function readFilmstrip(
  client: BidiClient,
  context: string,
  opts: { sandbox?: string } = {},
): Promise<FilmstripView> {
  const result = await client.send("script.evaluate", {
    expression: FILMSTRIP_VIEW_EXPRESSION,
    target: opts.sandbox ? { context, sandbox: opts.sandbox } : { context },
    awaitPromise: false,
  });
  if (result.type !== "success" || result.result.type !== "string")
    throw new Error(`the filmstrip page did not answer: ${JSON.stringify(result)}`);
  return JSON.parse(result.result.value) as FilmstripView;
}

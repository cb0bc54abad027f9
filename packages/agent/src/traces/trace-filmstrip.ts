/**
 * A run as a filmstrip: one self-contained HTML page with a frame per tool call (its step
 * screenshot, the acted-on element's box drawn on it, the text it typed) and a last frame for
 * how the run ended. `webbrain trace show FILE --html OUT` writes it, the add-on's traces page
 * shows it and exports it: this module is the one renderer of both.
 *
 * Invariants:
 * - Self-contained and inert: images are inline `data:` URLs, styles inline, no script at all
 *   (the page's CSP says so: `default-src 'none'`), so it opens anywhere, loads nothing, and
 *   can sit in an extension page's iframe, whose CSP forbids inline scripts.
 * - Scrubbing needs no script: a radio per frame picks what is shown (CSS `:checked`), the strip
 *   of step numbers and each frame's Previous / Next are labels for those radios, and the arrow
 *   keys move along the radios once one has focus.
 * - Every frame is in the document (`section.frame`, one per step, in order); without CSS they
 *   read top to bottom.
 * - A trace is data from a file: every text is escaped, an image's type and base64 are checked
 *   before they go into a `data:` URL.
 */
import { summarizeTrace, type TraceBox, type TraceRecord, type TraceShot } from "./trace-format.js";
import { type TimelineStep, traceTimeline } from "./trace-timeline.js";

const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/jpeg", "image/png", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The page's own policy: nothing but inline styles and data: images. */
export const FILMSTRIP_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";

/** Frame N's radio, the target of the strip's and the Previous / Next labels. */
export function filmstripStepId(index: number): string {
  return `step-${index + 1}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function shotSource(shot: TraceShot): string | undefined {
  if (!IMAGE_TYPES.has(shot.mimeType) || !BASE64.test(shot.dataBase64)) return undefined;
  return `data:${shot.mimeType};base64,${shot.dataBase64}`;
}

function percent(value: number, of: number): string {
  return `${Math.min(100, Math.max(0, (value / of) * 100)).toFixed(2)}%`;
}

/** The box as CSS position in shares of the viewport, or why it cannot be drawn. */
function boxStyle(box: TraceBox, viewport: { width: number; height: number }): string | undefined {
  if (viewport.width <= 0 || viewport.height <= 0) return undefined;
  const right = box.x + box.width;
  const bottom = box.y + box.height;
  if (right <= 0 || bottom <= 0 || box.x >= viewport.width || box.y >= viewport.height) return undefined;
  const left = Math.max(0, box.x);
  const top = Math.max(0, box.y);
  return [
    `left:${percent(left, viewport.width)}`,
    `top:${percent(top, viewport.height)}`,
    `width:${percent(Math.min(right, viewport.width) - left, viewport.width)}`,
    `height:${percent(Math.min(bottom, viewport.height) - top, viewport.height)}`,
  ].join(";");
}

function shotHtml(step: TimelineStep): string {
  const source = step.shot ? shotSource(step.shot) : undefined;
  const typed =
    step.typed !== undefined ? `<p class="typed">typed: ${escapeHtml(JSON.stringify(step.typed))}</p>` : "";
  if (!step.shot || !source) {
    const why = step.kind === "end" ? "" : '<p class="noshot">No screenshot for this step.</p>';
    return `${why}${typed}`;
  }
  const { box, viewport } = step.shot;
  const style = box && viewport ? boxStyle(box, viewport) : undefined;
  const drawn = style ? `<div class="box" style="${style}"></div>` : "";
  const offscreen =
    box && !style ? '<p class="offscreen">The element was outside the visible part of the page.</p>' : "";
  return `<div class="shot"><img alt="the page before this step" src="${source}">${drawn}</div>${offscreen}${typed}`;
}

function frameHtml(step: TimelineStep, index: number, count: number): string {
  const prev = index > 0 ? `<label class="prev" for="${filmstripStepId(index - 1)}">◀ Previous</label>` : "";
  const next =
    index < count - 1 ? `<label class="next" for="${filmstripStepId(index + 1)}">Next ▶</label>` : "";
  const seconds = (step.offsetMs / 1000).toFixed(1);
  return [
    `<section class="frame${step.ok ? "" : " failed"}" id="frame-${index + 1}" data-kind="${step.kind}">`,
    `<h2>Step ${index + 1} of ${count} <span class="at">${seconds} s</span></h2>`,
    `<p class="title">${escapeHtml(step.title)}</p>`,
    shotHtml(step),
    step.detail ? `<details><summary>Details</summary><pre>${escapeHtml(step.detail)}</pre></details>` : "",
    `<p class="nav">${prev} ${next}</p>`,
    "</section>",
  ].join("");
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:12px;color:#222}
h1{font-size:18px;margin:0 0 4px}
.pick{position:absolute;opacity:0;width:1px;height:1px}
.strip{display:flex;flex-wrap:wrap;gap:4px;margin:10px 0}
.strip label{border:1px solid #888;border-radius:3px;padding:1px 7px;cursor:pointer;user-select:none}
.strip label.failed{border-color:#c00;color:#c00}
.frame{display:none}
.frame h2{font-size:15px;margin:6px 0}
.frame .at{color:#666;font-weight:normal}
.frame.failed .title{color:#c00}
.shot{position:relative;display:inline-block;max-width:100%;border:1px solid #ccc}
.shot img{display:block;max-width:100%;height:auto}
.box{position:absolute;box-sizing:border-box;border:3px solid #e0142b;background:rgba(224,20,43,.12)}
.typed{font-family:monospace;background:#fff6c4;display:inline-block;padding:2px 6px}
.nav label{cursor:pointer;border:1px solid #888;border-radius:3px;padding:2px 10px;margin-right:6px}
pre{white-space:pre-wrap;background:#f4f4f4;padding:6px}
`;

/** Shows frame N when its radio is checked, and marks N's label in the strip. */
function pickerStyle(count: number): string {
  const rules: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = filmstripStepId(i);
    rules.push(`#${id}:checked~main #frame-${i + 1}{display:block}`);
    rules.push(`#${id}:checked~nav label[for=${id}]{background:#222;color:#fff}`);
  }
  return rules.join("\n");
}

/** The filmstrip of a trace's records as one HTML document (module comment). */
export function traceFilmstripHtml(records: readonly TraceRecord[]): string {
  const summary = summarizeTrace(records);
  const steps = traceTimeline(records).filter((step) => step.kind === "tool" || step.kind === "end");
  const shotBytes = steps.reduce((sum, step) => sum + (step.shot?.bytes ?? 0), 0);
  const shots = steps.filter((step) => step.shot).length;
  const radios = steps
    .map(
      (_, i) =>
        `<input class="pick" type="radio" name="step" id="${filmstripStepId(i)}" aria-label="step ${i + 1}"${i === 0 ? " checked" : ""}>`,
    )
    .join("");
  const strip = steps
    .map(
      (step, i) =>
        `<label for="${filmstripStepId(i)}"${step.ok ? "" : ' class="failed"'} title="${escapeHtml(step.title)}">${i + 1}</label>`,
    )
    .join("");
  const title = `WebBrain run: ${summary.task}`;
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${FILMSTRIP_CSP}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}${pickerStyle(steps.length)}</style></head><body>`,
    `<header><h1>${escapeHtml(title)}</h1>`,
    `<p class="summary">mode ${escapeHtml(summary.mode)}; ${escapeHtml(summary.site || "(no site)")}; started ${escapeHtml(summary.startedAt)}; outcome ${escapeHtml(summary.outcome)}; ${summary.toolCalls} tool calls, ${summary.modelCalls} model calls, ${(summary.durationMs / 1000).toFixed(1)} s; ${shots} step screenshots, ${shotBytes} bytes</p></header>`,
    radios,
    `<nav class="strip" aria-label="steps">${strip}</nav>`,
    `<main>${steps.map((step, i) => frameHtml(step, i, steps.length)).join("\n")}</main>`,
    "</body></html>",
    "",
  ].join("\n");
}

/**
 * Full-page screenshots in the add-on. `tabs.captureTab` takes a `rect` in page coordinates
 * (MDN `extensionTypes.ImageDetails`, Firefox 82+) and draws the document there, also what lies
 * outside the viewport, so a full page is one capture of the document's scroll size, measured
 * in the tab first. The runner's equivalent is BiDi's `captureScreenshot {origin: "document"}`.
 *
 * Invariants:
 * - The rect never exceeds MAX_CAPTURE_SIDE_PX on a side (Firefox refuses a canvas past 32767 px
 *   and large ones cost memory): a longer page is captured from its top down to that bound.
 * - A tab the add-on cannot script (about:, the add-on store) has no measurable size: the
 *   viewport is captured instead (the agent cannot read or act on such a page either).
 */

/** The longest side a full-page capture draws (well under Firefox's 32767 px canvas limit). */
export const MAX_CAPTURE_SIDE_PX = 16_384;

/** Read in the page: its scroll size in CSS pixels, at least the viewport's. */
const MEASURE_PAGE = `(() => {
  const root = document.documentElement;
  const body = document.body;
  return [
    Math.max(root.scrollWidth, body ? body.scrollWidth : 0, window.innerWidth),
    Math.max(root.scrollHeight, body ? body.scrollHeight : 0, window.innerHeight),
  ];
})()`;

export interface PageRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The document's rect to capture, bounded; undefined where the tab cannot be measured. */
export async function fullPageRect(tabId: number): Promise<PageRect | undefined> {
  const [size] = await browser.tabs
    .executeScript(tabId, { code: MEASURE_PAGE, runAt: "document_start" })
    .catch((): unknown[] => []);
  if (!Array.isArray(size) || size.length !== 2) return undefined;
  const [width, height] = size.map((side) => Math.min(MAX_CAPTURE_SIDE_PX, Math.ceil(Number(side))));
  if (!width || !height || width <= 0 || height <= 0) return undefined;
  return { x: 0, y: 0, width, height };
}

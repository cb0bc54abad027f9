/**
 * conversation_header: the recipient guard's read-only identity probe (the policy lives in
 * @webbrain/agent's recipient-guard.ts; this reports facts). Given the composer's ref, it reports
 * every heading on the page with where it is drawn: its box, whether it is visible, whether it
 * sits inside the composer's own container or inside a list / navigation / aside (a sidebar's
 * conversation rows), and the boxes of the composer, of the pane that holds the composer, and of
 * the pane's message list (a log or feed) when it has one. Nothing on the page is changed.
 */
import type { PageCallParams } from "@webbrain/protocol";
import { collapseWhitespace, truncate } from "../dom-realm.js";
import { describeForModel } from "../element-facts.js";
import { elementForRef } from "../element-target.js";
import type { PageState } from "../page-state.js";
import type { Answer } from "../protocol.js";
import { intersectsViewport, isRendered } from "../visibility.js";

const HEADING_SELECTOR = "h1, h2, h3, h4, h5, h6, [role=heading]";
/** Where a conversation list's rows live: a heading inside one is a row's title, not the header. */
const LIST_SELECTOR =
  "li, ul, ol, nav, aside, [role=list], [role=listbox], [role=listitem], [role=option], [role=row], [role=grid], [role=treeitem], [role=navigation], [role=complementary], [role=tablist]";
const MESSAGE_LIST_SELECTOR = "[role=log], [role=feed]";
const HEADINGS_MAX = 40;
const NAME_MAX_CHARS = 120;

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

function box(el: Element): Box {
  const r = el.getBoundingClientRect();
  return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
}

/** The composer's pane: the nearest ancestor that is wider or taller than the composer's row. */
function paneOf(composer: Element): Element {
  const own = composer.getBoundingClientRect();
  let node = composer.parentElement;
  while (node?.parentElement && node.parentElement !== node.ownerDocument.body) {
    const r = node.getBoundingClientRect();
    if (r.height > own.height * 3) return node;
    node = node.parentElement;
  }
  return node ?? composer;
}

export function conversationHeader(
  state: PageState,
  p: PageCallParams<"conversation_header">,
): Answer<"conversation_header"> {
  const composer = elementForRef(state, p.composer);
  const container = composer.parentElement ?? composer;
  const pane = paneOf(composer);
  const view = state.doc.defaultView;
  const width = view?.innerWidth ?? 0;
  const height = view?.innerHeight ?? 0;
  const log = Array.from(pane.querySelectorAll(MESSAGE_LIST_SELECTOR)).find(isRendered);
  const headings = Array.from(state.doc.querySelectorAll(HEADING_SELECTOR))
    .slice(0, HEADINGS_MAX)
    .map((el) => {
      const rect = el.getBoundingClientRect();
      const name = describeForModel(el).name || collapseWhitespace(el.textContent ?? "");
      return {
        name: truncate(name, NAME_MAX_CHARS),
        box: box(el),
        visible:
          isRendered(el) && rect.width > 0 && rect.height > 0 && intersectsViewport(rect, width, height),
        inComposer: container.contains(el),
        inList: el.closest(LIST_SELECTOR) !== null,
        inPane: pane.contains(el),
      };
    });
  return {
    details: {
      composer: { ...box(composer) },
      pane: { ...box(pane) },
      ...(log ? { messageList: { ...box(log) } } : {}),
      headings,
    },
  };
}

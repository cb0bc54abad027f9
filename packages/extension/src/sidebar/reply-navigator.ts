/**
 * Long replies, reading first: when an answer taller than the panel arrives, the panel shows
 * its beginning (not its end) and stops following new output until the person asks for the
 * newest again. A floating navigation jumps between the sections of long answers (their
 * headings, and each long answer's start) and back to the newest message.
 *
 * Invariants: anchors are found in the rendered transcript each time (never cached), so a
 * cleared or restored transcript needs no bookkeeping; the navigation is shown only while
 * there is a long answer to navigate or the newest message is out of view.
 */
import { t } from "../shared/i18n.js";

/** An answer counts as long when it is taller than this share of the visible chat. */
const LONG_REPLY_VIEWPORT_SHARE = 0.9;
/** Pixels of slack when deciding whether an anchor is above or below the top. */
const ANCHOR_SLACK_PX = 8;
/** Within this many pixels of the bottom counts as "at the newest". */
const AT_BOTTOM_PX = 24;

const ANCHORS = ".msg.assistant.long, .msg.assistant.long :is(h1, h2, h3, h4)";

export class ReplyNavigator {
  /** False while the person reads a long answer: new output does not scroll the panel. */
  following = true;
  private readonly prev: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  private readonly newest: HTMLButtonElement;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly list: HTMLElement,
    private readonly nav: HTMLElement,
  ) {
    this.prev = this.button("reply-prev", "↑", t("navPrevious"), () => this.jump(-1));
    this.next = this.button("reply-next", "↓", t("navNext"), () => this.jump(1));
    this.newest = this.button("reply-newest", `⤓ ${t("navNewest")}`, t("navNewest"), () => this.toNewest());
    nav.setAttribute("aria-label", t("navLabel"));
    nav.replaceChildren(this.prev, this.next, this.newest);
    scroller.addEventListener("scroll", () => this.onScroll(), { passive: true });
    this.refresh();
  }

  /** A finished answer was added: marks it long (with heading anchors) and, if so, shows its start. */
  answerAdded(node: HTMLElement, anchorId: string): void {
    if (!this.markIfLong(node, anchorId)) return;
    this.following = false;
    this.scrollTo(node);
  }

  /** Marks long answers of a restored transcript, without moving the reader. */
  markRestored(): void {
    let index = 0;
    for (const node of this.list.querySelectorAll<HTMLElement>(".msg.assistant")) {
      this.markIfLong(node, `restored-${++index}`);
    }
    this.refresh();
  }

  /** Show the newest message and follow new output again. */
  toNewest(): void {
    this.following = true;
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.refresh();
  }

  refresh(): void {
    const anchors = this.anchors();
    const atBottom = this.atBottom();
    this.nav.hidden = anchors.length === 0 && atBottom;
    const top = this.scroller.getBoundingClientRect().top;
    this.prev.disabled = !anchors.some((a) => a.getBoundingClientRect().top - top < -ANCHOR_SLACK_PX);
    this.next.disabled = !anchors.some((a) => a.getBoundingClientRect().top - top > ANCHOR_SLACK_PX);
    this.newest.disabled = atBottom;
  }

  private markIfLong(node: HTMLElement, anchorId: string): boolean {
    const long = node.offsetHeight > this.scroller.clientHeight * LONG_REPLY_VIEWPORT_SHARE;
    node.classList.toggle("long", long);
    if (!long) return false;
    node.id ||= `reply-${anchorId}`;
    node.querySelectorAll<HTMLElement>("h1, h2, h3, h4").forEach((heading, index) => {
      heading.id ||= `${node.id}-s${index + 1}`;
    });
    return true;
  }

  private anchors(): HTMLElement[] {
    return [...this.list.querySelectorAll<HTMLElement>(ANCHORS)];
  }

  private atBottom(): boolean {
    const { scrollTop, scrollHeight, clientHeight } = this.scroller;
    return scrollHeight - scrollTop - clientHeight <= AT_BOTTOM_PX;
  }

  private jump(direction: 1 | -1): void {
    const top = this.scroller.getBoundingClientRect().top;
    const offsets = this.anchors().map((anchor) => ({
      anchor,
      at: anchor.getBoundingClientRect().top - top,
    }));
    const target =
      direction > 0
        ? offsets.find((o) => o.at > ANCHOR_SLACK_PX)
        : offsets.filter((o) => o.at < -ANCHOR_SLACK_PX).at(-1);
    if (!target) return;
    this.following = false;
    this.scrollTo(target.anchor);
  }

  private scrollTo(anchor: HTMLElement): void {
    const offset = anchor.getBoundingClientRect().top - this.scroller.getBoundingClientRect().top;
    this.scroller.scrollTop += offset;
    this.refresh();
  }

  private onScroll(): void {
    // Scrolling down to the end by hand means "keep me at the newest" again.
    if (this.atBottom()) this.following = true;
    this.refresh();
  }

  private button(id: string, text: string, label: string, onClick: () => void): HTMLButtonElement {
    const button = document.createElement("button");
    button.type = "button";
    button.id = id;
    button.className = "secondary";
    button.textContent = text;
    button.title = label;
    button.setAttribute("aria-label", label);
    button.addEventListener("click", onClick);
    return button;
  }
}

/**
 * "Ask WebBrain about this" in the page's context menu (`menus`), on a selection, a link or an
 * image: it opens the sidebar and puts what was right-clicked into the Ask input as an
 * attachment (attachments.ts), so the person types their question beside it.
 *
 * - A selection becomes a text attachment with the page it came from (a selection wins over
 *   the link it may lie in: selecting is the more deliberate act).
 * - A link: its URL and text.
 * - An image: the image itself for a vision model (fetched here, within MAX_IMAGE_BYTES), else
 *   (or when it cannot be fetched) its URL and alt text, read from the page.
 *
 * The attachment waits in the ContextInbox under the tab until the tab's sidebar takes it
 * (`take_context_attachments`), so a sidebar that opens after the click still gets it.
 *
 * Invariant: the sidebar is opened first, inside Firefox's click handler: `sidebarAction.open`
 * works only while the person's click is being handled, before any await.
 */
import {
  type Attachment,
  base64Of,
  IMAGE_TYPES,
  MAX_ATTACHMENT_CHARS,
  MAX_ATTACHMENTS,
  MAX_IMAGE_BYTES,
} from "../shared/attachments.js";
import { t } from "../shared/i18n.js";

export const ASK_MENU_ID = "webbrain-ask-about";
export const ASK_MENU_CONTEXTS: browser.menus.ContextType[] = ["selection", "link", "image"];

/** Attachments from the context menu, per tab, until that tab's sidebar takes them. */
export class ContextInbox {
  readonly #items = new Map<number, Attachment[]>();
  readonly #listeners = new Set<(tabId: number) => void>();

  put(tabId: number, attachment: Attachment): void {
    // The newest click wins a full inbox: it is what the person just asked about.
    const items = [...(this.#items.get(tabId) ?? []), attachment].slice(-MAX_ATTACHMENTS);
    this.#items.set(tabId, items);
    for (const listener of this.#listeners) listener(tabId);
  }

  take(tabId: number): Attachment[] {
    const items = this.#items.get(tabId) ?? [];
    this.#items.delete(tabId);
    return items;
  }

  onPut(listener: (tabId: number) => void): void {
    this.#listeners.add(listener);
  }

  forget(tabId: number): void {
    this.#items.delete(tabId);
  }
}

/** What building an attachment needs from Firefox (swapped in no test: all real). */
export interface ContextSources {
  /** The active provider takes images. */
  vision(): Promise<boolean>;
  /** The image at `url`, if it is one we can send and within the size bound. */
  fetchImage(url: string): Promise<{ mimeType: string; dataBase64: string } | undefined>;
  /** The right-clicked image's alt text (or title), "" when the page does not say. */
  imageAlt(tabId: number, info: browser.menus.OnClickData): Promise<string>;
}

const shortName = (text: string, max = 48) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function fileName(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "data:") return "image";
    return decodeURIComponent(parsed.pathname.split("/").pop() || parsed.hostname);
  } catch {
    return url;
  }
}

/** The attachment for one click, or undefined when the click carried nothing we use. */
export async function contextAttachment(
  info: browser.menus.OnClickData,
  tabId: number,
  sources: ContextSources,
): Promise<Attachment | undefined> {
  const page = info.pageUrl ? `\n(on the page ${info.pageUrl})` : "";
  if (info.srcUrl && (info.mediaType === "image" || !info.linkUrl)) {
    const src = info.srcUrl;
    if (await sources.vision()) {
      const image = await sources.fetchImage(src).catch(() => undefined);
      if (image) return { kind: "image", name: fileName(src), ...image };
    }
    const alt = await sources.imageAlt(tabId, info).catch(() => "");
    const text = `An image on the page.\nImage URL: ${src}\nAlt text: ${alt || "(none)"}${page}`;
    return { kind: "text", name: t("contextImageName", shortName(fileName(src))), text };
  }
  const selection = info.selectionText?.trim();
  if (selection) {
    const text = `Text the user selected:\n${selection.slice(0, MAX_ATTACHMENT_CHARS - 200)}${page}`;
    return { kind: "text", name: t("contextSelectionName", shortName(selection, 32)), text };
  }
  if (info.linkUrl) {
    const label = info.linkText?.trim() ?? "";
    const text = `A link on the page.\nLink URL: ${info.linkUrl}\nLink text: ${label || "(none)"}${page}`;
    return { kind: "text", name: t("contextLinkName", shortName(label || info.linkUrl)), text };
  }
  return undefined;
}

/** Firefox's sources: the settings' provider, the background page's fetch, the page's DOM. */
export function firefoxContextSources(vision: () => Promise<boolean>): ContextSources {
  return {
    vision,
    async fetchImage(url) {
      const response = await fetch(url);
      const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
      if (!response.ok || !(IMAGE_TYPES as readonly string[]).includes(type)) return undefined;
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length > MAX_IMAGE_BYTES) return undefined;
      return { mimeType: type, dataBase64: base64Of(bytes) };
    },
    async imageAlt(tabId, info) {
      // menus.getTargetElement exists in content scripts only; fall back to the image's src.
      const code = `(() => {
        const id = ${JSON.stringify(info.targetElementId ?? null)};
        const src = ${JSON.stringify(info.srcUrl ?? "")};
        const target = id !== null && browser.menus && browser.menus.getTargetElement
          ? browser.menus.getTargetElement(id) : null;
        const image = target || [...document.images].find((i) => i.currentSrc === src || i.src === src);
        return image ? image.alt || image.title || "" : "";
      })()`;
      const [alt] = await browser.tabs.executeScript(tabId, {
        code,
        ...(info.frameId !== undefined ? { frameId: info.frameId } : {}),
      });
      return typeof alt === "string" ? alt : "";
    },
  };
}

/**
 * The click handler: open the sidebar (first, while Firefox still counts the click), then
 * attach what was clicked for that tab.
 */
export function askAboutHandler(
  inbox: ContextInbox,
  sources: ContextSources,
): (info: browser.menus.OnClickData, tab?: browser.tabs.Tab) => Promise<Attachment | undefined> {
  return async (info, tab) => {
    if (info.menuItemId !== ASK_MENU_ID || tab?.id === undefined) return undefined;
    const opened = browser.sidebarAction.open().catch(() => undefined);
    const attachment = await contextAttachment(info, tab.id, sources);
    if (attachment) inbox.put(tab.id, attachment);
    await opened;
    return attachment;
  };
}

/** Creates the menu item and listens for its clicks. */
export function installContextMenu(
  handler: (info: browser.menus.OnClickData, tab?: browser.tabs.Tab) => Promise<unknown>,
): void {
  browser.menus.create({ id: ASK_MENU_ID, title: t("menuAskAbout"), contexts: ASK_MENU_CONTEXTS });
  browser.menus.onClicked.addListener((info, tab) => {
    handler(info, tab).catch((error: unknown) => console.error("WebBrain: context menu failed", error));
  });
}

/**
 * The executor's URL checks, for every tool call on every port (and replayed steps, which go
 * through the executor): what the user allowed for local files (url-policy.ts), and in Ask what
 * fetch_url / research_url may reach and with which cookies (ask-fetch-policy.ts).
 *
 * Invariants:
 * - A tool that reads or acts on the page is refused while the tab shows a document the user
 *   did not allow (a file: page reached through a link or a redirect), before the port is called.
 * - Every URL argument (navigate, new_tab, fetch_url, research_url, download_files) passes
 *   urlRefusal first; a refusal sends nothing.
 */

import { detailsOf } from "@webbrain/protocol";
import type { Conversation } from "../loop/conversation.js";
import type { BrowserPort } from "../tools/browser-port.js";
import type { ToolContract } from "../tools/tool-catalog.js";
import {
  ASK_LINKS_READ,
  type AskFetchVerdict,
  askFetchVerdict,
  type RequestCredentials,
} from "./ask-fetch-policy.js";
import { documentRefusal, NO_LOCAL_FILES, type UrlRefusal, urlRefusal } from "./url-policy.js";

export interface UrlGateContext {
  conversation: Conversation;
  tabId: string;
  /** The tab's current document URL ("" when unknown). */
  pageUrl: string;
  signal?: AbortSignal;
}

export type UrlGateVerdict =
  | { allowed: true; credentials?: RequestCredentials }
  | { allowed: false; code: string; message: string };

function worksOnPage(spec: ToolContract): boolean {
  return spec.runs.in === "page" || spec.runs.in === "port_action" || spec.onPage === true;
}

/** The URLs a call would open, fetch or download. */
function urlArguments(spec: ToolContract, args: Record<string, unknown>): string[] {
  if (spec.opensUrls === "urls") return Array.isArray(args.urls) ? args.urls.map(String) : [];
  if (spec.opensUrls === "url") return [typeof args.url === "string" ? args.url : ""];
  return [];
}

function refused(refusal: UrlRefusal): UrlGateVerdict {
  return { allowed: false, code: refusal.code, message: refusal.message };
}

export async function gateUrls(
  port: BrowserPort,
  spec: ToolContract,
  args: Record<string, unknown>,
  ctx: UrlGateContext,
): Promise<UrlGateVerdict> {
  const access = port.localFiles ?? NO_LOCAL_FILES;
  if (worksOnPage(spec)) {
    const refusal = documentRefusal(ctx.pageUrl, access);
    if (refusal) return refused(refusal);
  }
  for (const url of urlArguments(spec, args)) {
    const refusal = urlRefusal(url, access, spec.name);
    if (refusal) return refused(refusal);
  }
  // Ask's rule is about reaching other origins, which is what the `network` kind declares.
  if (ctx.conversation.mode !== "ask" || spec.kind !== "network") return { allowed: true };
  const verdict: AskFetchVerdict = await askFetchVerdict({
    url: String(args.url),
    userUrls: ctx.conversation.userUrls ?? [],
    pageUrl: ctx.pageUrl,
    pageLinks: () => linksOf(port, ctx),
  });
  return verdict.allowed
    ? { allowed: true, credentials: verdict.credentials }
    : { allowed: false, code: "ask_fetch_refused", message: verdict.message };
}

/** The current page's link targets, through the page layer's extract_data. */
async function linksOf(port: BrowserPort, ctx: UrlGateContext): Promise<string[]> {
  const result = await port
    .pageAction(
      ctx.tabId,
      "extract_data",
      { type: "links", limit: ASK_LINKS_READ },
      ctx.signal ? { signal: ctx.signal } : {},
    )
    .catch(() => undefined);
  // Asked for links, extract_data answers {text, href} items (its contract's details).
  const items = detailsOf("extract_data", result)?.items ?? [];
  return items.flatMap((item) =>
    typeof item === "object" && item !== null && "href" in item ? [item.href] : [],
  );
}

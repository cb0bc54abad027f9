/**
 * Which browsing context a frame tool means. The model names a frame the way spec 000's tools
 * do (urlFilter / url_filter, index, ref_id); the runner answers with the frame's own BiDi
 * context, so cross-origin frames are read and operated like any page.
 *
 * Invariants: a frame is picked only when exactly one matches; otherwise the answer lists the
 * frames there are, so the model can choose. Only direct child frames of the tab are indexed
 * (as get_frames lists them); deeper frames are reached by urlFilter.
 */
import type { PageResult } from "@webbrain/agent";
import { detailsOf, pageResultOf } from "@webbrain/protocol";
import type { FrameInfo, TabContexts } from "../browser/tab-contexts.js";
import type { PageScriptChannel } from "../port/page-script-channel.js";

export class FrameTargets {
  readonly #channel: PageScriptChannel;
  readonly #tabs: TabContexts;

  constructor(channel: PageScriptChannel, tabs: TabContexts) {
    this.#channel = channel;
    this.#tabs = tabs;
  }

  /** `{success: true, context, url}` for the one frame the params name, else a failure. */
  async pick(tabId: string, params: Record<string, unknown>): Promise<PageResult> {
    const frames = (await this.#tabs.frames(tabId)).slice(1);
    if (frames.length === 0) return { success: false, error: "This page has no frames." };
    const listing = frames.map((f) => f.url).join(", ");
    const filter = params.urlFilter ?? params.url_filter;
    let chosen: FrameInfo[];
    if (typeof filter === "string" && filter) {
      chosen = frames.filter((f) => f.url.includes(filter));
    } else if (params.index !== undefined) {
      const children = frames.filter((f) => f.depth === 1);
      const frame = children[Number(params.index)];
      chosen = frame ? [frame] : [];
    } else if (params.ref_id !== undefined) {
      chosen = await this.#byRef(tabId, frames, params.ref_id);
    } else {
      chosen = frames.length === 1 ? frames : [];
      if (chosen.length === 0) {
        return {
          success: false,
          error: `The page has ${frames.length} frames (${listing}); pass urlFilter or index.`,
        };
      }
    }
    if (chosen.length !== 1) {
      const what = chosen.length === 0 ? "No frame matches" : `${chosen.length} frames match`;
      return {
        success: false,
        error: `${what} that description; the frames are: ${listing}. Pass urlFilter or index.`,
      };
    }
    return { success: true, context: chosen[0]!.context, url: chosen[0]!.url };
  }

  /** A ref from the tree that names an <iframe>: its index among the tab's child frames. */
  async #byRef(tabId: string, frames: FrameInfo[], ref: unknown): Promise<FrameInfo[]> {
    const listed = detailsOf("get_frames", pageResultOf(await this.#channel.call(tabId, "get_frames", {})));
    const entry = listed?.frames.find((f) => String(f.ref_id) === String(ref));
    const children = frames.filter((f) => f.depth === 1);
    const frame = entry ? children[entry.index] : undefined;
    return frame ? [frame] : [];
  }
}

/**
 * Which browsing context a frame tool means: the agent's `pickFrame` (urlFilter / url_filter,
 * index, ref_id; exactly one frame or a failure listing them) over the tab's frames as BiDi
 * reports them, so the runner answers with the frame's own context and cross-origin frames are
 * read and operated like any page. Only direct child frames of the tab are indexed (as get_frames
 * lists them, in document order); deeper frames are reached by urlFilter.
 */
import { type FrameCandidate, type PageResult, pickFrame } from "@webbrain/agent";
import { pageResultOf } from "@webbrain/protocol";
import type { FrameInfo, TabContexts } from "../browser/tab-contexts.js";
import type { PageScriptChannel } from "../port/page-script-channel.js";

type FrameContext = FrameInfo & FrameCandidate;

export class FrameTargets {
  readonly #channel: PageScriptChannel;
  readonly #tabs: TabContexts;

  constructor(channel: PageScriptChannel, tabs: TabContexts) {
    this.#channel = channel;
    this.#tabs = tabs;
  }

  /** `{success: true, context, url}` for the one frame the params name, else a failure. */
  async pick(tabId: string, params: Record<string, unknown>): Promise<PageResult> {
    const picked = await pickFrame<FrameContext>(
      {
        frames: async () =>
          (await this.#tabs.frames(tabId)).slice(1).map((frame) => ({ ...frame, child: frame.depth === 1 })),
        listedFrames: async () => pageResultOf(await this.#channel.call(tabId, "get_frames", {})),
      },
      params,
    );
    if ("failure" in picked) return picked.failure;
    return { success: true, context: picked.frame.context, url: picked.frame.url };
  }
}

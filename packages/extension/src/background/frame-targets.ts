/**
 * Which frame of a tab a frame tool means, as Firefox numbers them (`frameId`, from
 * `webNavigation.getAllFrames`), so cross-origin frames are read and operated through their own
 * content script like any page. The model names a frame as spec 000's tools do: urlFilter /
 * url_filter (a part of its URL), index (among the tab's direct child frames, as get_frames
 * lists them) or ref_id (the iframe's ref in the tree).
 *
 * Invariants: a frame is picked only when exactly one matches; otherwise nothing is dispatched and
 * the answer lists the frames there are, so the model can choose. The top document is never a
 * candidate.
 */
import type { PageResult } from "@webbrain/agent";

export interface FrameEntry {
  frameId: number;
  parentFrameId: number;
  url: string;
}

export interface PickedFrame {
  success: true;
  frameId: number;
  url: string;
}

export interface FrameTargetDeps {
  /** Every frame of the tab, the top document included (webNavigation.getAllFrames). */
  listFrames(tabId: number): Promise<FrameEntry[]>;
  /** get_frames in the tab's top document: `{frames: [{index, ref_id, src}]}`. */
  topFrames(tabId: number): Promise<PageResult>;
}

function urlFilterOf(params: Record<string, unknown>): string | undefined {
  const filter = params.urlFilter ?? params.url_filter;
  return typeof filter === "string" && filter ? filter : undefined;
}

export class FrameTargets {
  readonly #deps: FrameTargetDeps;

  constructor(deps: FrameTargetDeps) {
    this.#deps = deps;
  }

  /** `{success: true, frameId, url}` for the one frame the params name, else a failure to show the model. */
  async pick(tabId: number, params: Record<string, unknown>): Promise<PickedFrame | PageResult> {
    const frames = (await this.#deps.listFrames(tabId))
      .filter((frame) => frame.frameId !== 0)
      .sort((a, b) => a.frameId - b.frameId);
    if (frames.length === 0) return { success: false, error: "This page has no frames." };
    const listing = frames.map((frame) => frame.url).join(", ");
    const children = frames.filter((frame) => frame.parentFrameId === 0);
    const filter = urlFilterOf(params);
    let chosen: FrameEntry[];
    if (filter) {
      chosen = frames.filter((frame) => frame.url.includes(filter));
    } else if (params.index !== undefined && params.index !== null) {
      const frame = children[Number(params.index)];
      chosen = frame ? [frame] : [];
    } else if (params.ref_id !== undefined && params.ref_id !== null) {
      chosen = await this.#byRef(tabId, children, params.ref_id);
    } else if (frames.length === 1) {
      chosen = frames;
    } else {
      return {
        success: false,
        error: `The page has ${frames.length} frames (${listing}); pass urlFilter or index.`,
      };
    }
    if (chosen.length !== 1) {
      const what = chosen.length === 0 ? "No frame matches" : `${chosen.length} frames match`;
      return {
        success: false,
        code: chosen.length === 0 ? "not_found" : "ambiguous",
        error: `${what} that description; the frames are: ${listing}. Pass a urlFilter that only one frame's URL contains, or index.`,
      };
    }
    const [frame] = chosen as [FrameEntry];
    return { success: true, frameId: frame.frameId, url: frame.url };
  }

  /** A ref from the tree that names an <iframe>: its index among the tab's child frames. */
  async #byRef(tabId: number, children: FrameEntry[], ref: unknown): Promise<FrameEntry[]> {
    const listed = await this.#deps.topFrames(tabId);
    const list = Array.isArray(listed.frames) ? listed.frames : [];
    const entry = list.find(
      (frame) =>
        typeof frame === "object" &&
        frame !== null &&
        !Array.isArray(frame) &&
        String(frame.ref_id) === String(ref),
    ) as { index?: unknown } | undefined;
    const frame = typeof entry?.index === "number" ? children[entry.index] : undefined;
    return frame ? [frame] : [];
  }
}

export function isPickedFrame(result: PickedFrame | PageResult): result is PickedFrame {
  return result.success === true && typeof result.frameId === "number";
}

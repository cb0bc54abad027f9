/**
 * Which frame of a tab a frame tool means (iframe_click, iframe_type, a cross-origin iframe_read,
 * verify_form {urlFilter}, promote_iframe). The model names a frame as spec 000's tools do:
 * urlFilter / url_filter (a part of its URL), index (among the tab's direct child frames, as
 * get_frames lists them) or ref_id (the iframe's ref in the tree); with none, a tab with one
 * frame means that one. Each port lists its frames as its browser numbers them (the runner: BiDi
 * contexts; the add-on: webNavigation frameIds) and acts in the frame it is handed back.
 *
 * Invariants: a frame is picked only when exactly one matches; otherwise the answer is a failure
 * (`not_found`, `ambiguous`) that lists the frames there are, so the model can choose, and the
 * port dispatches nothing. The top document is never a candidate. `null` arguments count as absent.
 */
import type { PageResult } from "../tools/browser-port.js";

/** A frame as a port lists it; a port's own fields (context, frameId) ride along. */
export interface FrameCandidate {
  url: string;
  /** A direct child of the top document: what `index` and get_frames count. */
  child: boolean;
}

export interface FramePickDeps<Frame extends FrameCandidate> {
  /** The tab's frames without the top document, child frames in the order get_frames indexes them. */
  frames(): Promise<readonly Frame[]>;
  /** get_frames in the tab's top document (`{frames: [{index, ref_id, src}]}`); asked only for `ref_id`. */
  listedFrames(): Promise<unknown>;
}

/** The one frame the arguments name, or the failure to show the model. */
export type FramePick<Frame> = { readonly frame: Frame } | { readonly failure: PageResult };

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function urlFilterOf(params: Record<string, unknown>): string | undefined {
  const filter = params.urlFilter ?? params.url_filter;
  return typeof filter === "string" && filter ? filter : undefined;
}

export async function pickFrame<Frame extends FrameCandidate>(
  deps: FramePickDeps<Frame>,
  params: Record<string, unknown>,
): Promise<FramePick<Frame>> {
  const frames = await deps.frames();
  if (frames.length === 0) return { failure: { success: false, error: "This page has no frames." } };
  const listing = frames.map((frame) => frame.url).join(", ");
  const children = frames.filter((frame) => frame.child);
  const filter = urlFilterOf(params);
  let chosen: readonly Frame[];
  if (filter) {
    chosen = frames.filter((frame) => frame.url.includes(filter));
  } else if (present(params.index)) {
    const frame = children[Number(params.index)];
    chosen = frame ? [frame] : [];
  } else if (present(params.ref_id)) {
    chosen = byRef(children, await deps.listedFrames(), params.ref_id);
  } else if (frames.length === 1) {
    chosen = frames;
  } else {
    return {
      failure: {
        success: false,
        error: `The page has ${frames.length} frames (${listing}); pass urlFilter or index.`,
      },
    };
  }
  const [frame] = chosen;
  if (frame && chosen.length === 1) return { frame };
  const what = chosen.length === 0 ? "No frame matches" : `${chosen.length} frames match`;
  return {
    failure: {
      success: false,
      code: chosen.length === 0 ? "not_found" : "ambiguous",
      error: `${what} that description; the frames are: ${listing}. Pass a urlFilter that only one frame's URL contains, or index.`,
    },
  };
}

/** A ref from the tree that names an <iframe>: get_frames says its index among the child frames. */
function byRef<Frame>(children: readonly Frame[], listed: unknown, ref: unknown): Frame[] {
  const list = isRecord(listed) && Array.isArray(listed.frames) ? listed.frames : [];
  const entry = list.find((frame) => isRecord(frame) && String(frame.ref_id) === String(ref));
  const index = isRecord(entry) ? entry.index : undefined;
  const frame = typeof index === "number" ? children[index] : undefined;
  return frame ? [frame] : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

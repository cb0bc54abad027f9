/**
 * pickFrame, which frame a frame tool means, over a scripted frame list and get_frames answer:
 * exactly one frame or a failure that lists them. (Real frames: runner frame-tools and
 * trusted-page-actions, add-on webext-port.)
 */
import { describe, expect, it } from "vitest";
import { type FrameCandidate, pickFrame } from "../../src/index.js";

interface TestFrame extends FrameCandidate {
  id: string;
}

const PAY: TestFrame = { id: "pay", url: "https://pay.test/frame", child: true };
const ADS: TestFrame = { id: "ads", url: "https://ads.test/frame", child: true };
const NESTED: TestFrame = { id: "nested", url: "https://pay.test/inner", child: false };

function deps(frames: TestFrame[], listed: unknown = { frames: [] }) {
  let listings = 0;
  return {
    frames: async () => frames,
    listedFrames: async () => {
      listings += 1;
      return listed;
    },
    listings: () => listings,
  };
}

async function picked(frames: TestFrame[], params: Record<string, unknown>, listed?: unknown) {
  const result = await pickFrame(deps(frames, listed), params);
  return "frame" in result ? result.frame.id : result.failure;
}

describe("pickFrame", () => {
  it("picks by a part of the URL (urlFilter or url_filter), deeper frames included", async () => {
    expect(await picked([PAY, ADS, NESTED], { urlFilter: "ads." })).toBe("ads");
    expect(await picked([PAY, ADS, NESTED], { url_filter: "inner" })).toBe("nested");
  });

  it("picks by index among the direct child frames only", async () => {
    expect(await picked([PAY, NESTED, ADS], { index: 1 })).toBe("ads");
    expect(await picked([PAY, NESTED, ADS], { index: 2 })).toMatchObject({
      success: false,
      code: "not_found",
    });
  });

  it("picks by the iframe's ref through get_frames, asking for it only then", async () => {
    const listed = {
      frames: [
        { index: 0, ref_id: 4 },
        { index: 1, ref_id: 9 },
      ],
    };
    expect(await picked([PAY, NESTED, ADS], { ref_id: "9" }, listed)).toBe("ads");
    expect(await picked([PAY, ADS], { ref_id: 5 }, listed)).toMatchObject({ code: "not_found" });
    expect(await picked([PAY, ADS], { ref_id: 5 }, "not a listing")).toMatchObject({ code: "not_found" });
    const d = deps([PAY, ADS], listed);
    await pickFrame(d, { urlFilter: "pay" });
    expect(d.listings()).toBe(0);
  });

  it("takes the only frame when nothing names one, and treats null arguments as absent", async () => {
    expect(await picked([PAY], {})).toBe("pay");
    expect(await picked([PAY], { index: null, ref_id: null, urlFilter: "" })).toBe("pay");
    expect(await picked([PAY, ADS], { index: null })).toEqual({
      success: false,
      error:
        "The page has 2 frames (https://pay.test/frame, https://ads.test/frame); pass urlFilter or index.",
    });
  });

  it("refuses an ambiguous or unknown description, listing the frames", async () => {
    expect(await picked([PAY, ADS, NESTED], { urlFilter: "pay.test" })).toEqual({
      success: false,
      code: "ambiguous",
      error:
        "2 frames match that description; the frames are: https://pay.test/frame, https://ads.test/frame, https://pay.test/inner. Pass a urlFilter that only one frame's URL contains, or index.",
    });
    expect(await picked([PAY, ADS], { urlFilter: "nowhere" })).toMatchObject({
      code: "not_found",
      error: expect.stringMatching(/^No frame matches that description; the frames are: https:\/\/pay/),
    });
  });

  it("says so when the page has no frames", async () => {
    expect(await picked([], { index: 0 })).toEqual({ success: false, error: "This page has no frames." });
  });
});

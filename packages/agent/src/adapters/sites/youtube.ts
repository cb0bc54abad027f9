import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "youtube",
  name: "YouTube",
  category: "social",
  matches: ["*://www.youtube.com/*", "*://m.youtube.com/*", "*://youtube.com/*"],
  advice:
    "The player takes keys: k play/pause, j and l skip 10 s, m mute, f fullscreen. Comments load only after scrolling below the video. The transcript is in the description's 'Show transcript' button.",
  examples: {
    match: ["https://www.youtube.com/watch?v=abc"],
    noMatch: ["https://music.youtube.com/"],
  },
});

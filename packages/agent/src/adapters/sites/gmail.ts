import { defineSiteAdapter } from "../site-adapter.js";

export default defineSiteAdapter({
  id: "gmail",
  name: "Gmail",
  category: "productivity",
  matches: ["*://mail.google.com/*"],
  advice:
    "Compose opens a floating dialog: To is a recipient picker (type, then choose the suggestion), the body is rich text. Fill To, Subject and body, press Send once and look for the 'Message sent' notice. Search takes operators such as from:, to:, subject:, has:attachment.",
  examples: {
    match: ["https://mail.google.com/mail/u/0/#inbox"],
    noMatch: ["https://www.google.com/gmail/about/"],
  },
});

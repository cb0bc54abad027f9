/** Files in and out: downloads (listed, read back), and a file handed to the page (upload or drop). */
import { Type } from "typebox";
import { tool } from "./contract.js";
import { EXAMPLE_DOWNLOAD_ID, exampleOriginUrl } from "./example.js";
import { DownloadInfo } from "./result-shapes.js";
import { ACTING_MID, optBool, optNum, optRef, optStr, PORT, READING_MID, str } from "./shorthands.js";

export const DOWNLOADS_TOOLS = [
  tool("list_downloads", {
    kind: "observe",
    description: "Recent downloads.",
    parameters: Type.Object({ limit: optNum() }),
    details: Type.Object({ downloads: Type.Array(DownloadInfo) }),
    offer: READING_MID,
    needs: ["downloads"],
    runs: PORT,
    example: { limit: 5 },
  }),
  tool("read_downloaded_file", {
    kind: "observe",
    description: "Read a downloaded file.",
    parameters: Type.Object({ id: str() }),
    details: Type.Object({
      id: Type.String(),
      filename: Type.String(),
      mime: optStr(),
      content: Type.String(),
      encoding: Type.Enum(["utf8", "base64"]),
      truncated: Type.Boolean(),
    }),
    offer: READING_MID,
    needs: ["downloads"],
    runs: PORT,
    example: { id: EXAMPLE_DOWNLOAD_ID },
  }),
  tool("download_resource_from_page", {
    kind: "download",
    description: "Download the file behind an element.",
    parameters: Type.Object({ ref_id: optRef, selector: optStr(), filename: optStr() }),
    details: Type.Object({ download: DownloadInfo }),
    offer: ACTING_MID,
    needs: ["resource_url", "download"],
    runs: PORT,
    onPage: true,
    example: { selector: "#report" },
  }),
  tool("download_files", {
    kind: "download",
    description: "Download URLs.",
    parameters: Type.Object({ urls: Type.Array(Type.String()) }),
    details: Type.Object({ downloads: Type.Array(DownloadInfo) }),
    offer: ACTING_MID,
    needs: ["download"],
    runs: PORT,
    opensUrls: "urls",
    example: { urls: [exampleOriginUrl("/conformance/report.txt")] },
  }),
  tool("upload_file", {
    kind: "act",
    description: "Put a file into a file input, or drop it on a drop zone (drop: true).",
    parameters: Type.Object({
      ref_id: optRef,
      selector: optStr(),
      downloadId: optStr("a file this run downloaded (from list_downloads)"),
      path: optStr("a file the user gave for upload, as the user named it"),
      drop: optBool("drop the file on this element (a drop zone with no file input)"),
    }),
    details: Type.Object({ uploaded: Type.String(), bytes: optNum(), dropped: optBool() }),
    offer: ACTING_MID,
    needs: ["file_upload"],
    runs: PORT,
    replay: "replayed",
    sends: { trigger: "uploads", target: "none" },
    preflight: "upload",
    permission: { capability: "upload", origin: "page" },
    onPage: true,
    example: { selector: "#attachment", downloadId: EXAMPLE_DOWNLOAD_ID },
  }),
] as const;

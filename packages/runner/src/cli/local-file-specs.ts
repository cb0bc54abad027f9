/** The flags that say what of the user's files the agent may reach (local-files.ts). */
import type { OptionSpecs } from "./argv-parser.js";

/** What of the user's files the agent may reach (local-files.ts). Every command that drives a browser. */
export const localFileOptions = {
  "allow-file-urls": {
    kind: "boolean",
    help: "Allow file: URLs (local files) for navigation, fetches and reading; refused by default.",
  },
  "upload-dir": {
    kind: "string",
    valueName: "DIR",
    repeatable: true,
    help: "upload_file may send files in this folder (symlinks and .. resolved first); repeatable.",
  },
  attach: {
    kind: "string",
    valueName: "FILE",
    repeatable: true,
    help: "upload_file may send this file; repeatable. Without --upload-dir/--attach only the run's downloads.",
  },
} as const satisfies OptionSpecs;

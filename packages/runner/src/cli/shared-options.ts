/** Turning parsed flags into the options objects of the runner's modules. */
import { resolve } from "node:path";
import type { BrowserConnectionOptions } from "../browser-connection.js";

export function browserOptionsFrom(options: {
  headed?: boolean;
  connect?: string;
  webdriver?: string;
  firefox?: string;
  profile?: string;
  "storage-state"?: string;
}): BrowserConnectionOptions & { storageState?: string } {
  return {
    ...(options.headed ? { headed: true } : {}),
    ...(options.connect ? { connect: options.connect } : {}),
    ...(options.webdriver ? { webdriver: options.webdriver } : {}),
    ...(options.firefox ? { firefoxPath: options.firefox } : {}),
    ...(options.profile ? { profileDir: resolve(options.profile) } : {}),
    ...(options["storage-state"] ? { storageState: resolve(options["storage-state"]) } : {}),
  };
}

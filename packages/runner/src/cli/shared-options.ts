/** Turning parsed flags into the options objects of the runner's modules. */
import type { BrowserConnectionOptions } from "../browser-connection.js";

export function browserOptionsFrom(options: {
  headed?: boolean;
  connect?: string;
  webdriver?: string;
  firefox?: string;
}): BrowserConnectionOptions {
  return {
    ...(options.headed ? { headed: true } : {}),
    ...(options.connect ? { connect: options.connect } : {}),
    ...(options.webdriver ? { webdriver: options.webdriver } : {}),
    ...(options.firefox ? { firefoxPath: options.firefox } : {}),
  };
}

/**
 * The add-on's "local files" setting as the agent's URL policy reads it (url-policy.ts in
 * @webbrain/agent): file: URLs only when the user turned the Settings checkbox on.
 */
import type { LocalFileAccess } from "@webbrain/agent";

/** The URL policy's view of the Settings page's "local files" checkbox, with the refusal's hint. */
export function addonLocalFiles(allowFileUrls: boolean): LocalFileAccess {
  return {
    allowFileUrls,
    howToAllow:
      'To allow them, the user turns on "Let the agent open local files (file: URLs)" in WebBrain\'s Settings.',
  };
}

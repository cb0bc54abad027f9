/**
 * @webbrain/extension: the Firefox add-on. Its product is the built add-on (`npm run build`,
 * see README.md); these exports are the browser-free parts other code and tests may reuse.
 */

export { argsSummary, planForApproval } from "./background/panel-text.js";
export type { Clock, JournalSink } from "./background/run-journal.js";
export {
  DELTA_FLUSH_MS,
  MAX_REPLAY_EVENTS,
  MAX_STREAM_TEXT_CHARS,
  RunJournal,
  runUiKey,
} from "./background/run-journal.js";
export type { JournalEntry, PendingPrompt, RunEvent, RunSnapshot, RunStatus } from "./shared/run-events.js";
export {
  DEFAULT_SETTINGS,
  PROVIDER_PRESETS,
  type ProviderConfig,
  parseSettings,
  type Settings,
  validateProvider,
} from "./shared/settings.js";
export type { TranscriptItem } from "./shared/transcript.js";

/**
 * The traces page's strings that its script writes (one place, to move to _locales as a whole);
 * the fixed labels are in traces.html with data-i18n keys (traces*). Functions take the values
 * a sentence needs.
 */
export const TRACES_STRINGS = {
  anySite: "All sites",
  anyOutcome: "All outcomes",
  imported: (task: string) => `Imported the run "${task}".`,
  importFailed: (why: string) => `That file could not be imported: ${why}`,
  meta: (site: string, when: string, outcome: string, tools: number, tokensIn: number, tokensOut: number) =>
    `${site || "(no site)"} · ${when} · ${outcome} · ${tools} tool calls · ${tokensIn}/${tokensOut} tokens`,
  row: (task: string, site: string, when: string, outcome: string) =>
    `${task} — ${site || "(no site)"} — ${when} — ${outcome}`,
} as const;

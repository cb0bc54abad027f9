/**
 * The skills packaged with the agent (packages/agent/skills/<id>.md, exported as
 * `@webbrain/agent/skills/<id>.md`): the add-on seeds them into its stored skills on first run
 * (Wikipedia and FreeSkillz.xyz enabled, as spec 000 has them); the runner loads one by its id
 * (`--skill wikipedia`). The Markdown files are the one source; this list is what both read by.
 */
export const PACKAGED_SKILL_IDS = [
  "wikipedia",
  "freeskillz-xyz",
  "open-meteo-weather",
  "open-library-books",
] as const;

export type PackagedSkillId = (typeof PACKAGED_SKILL_IDS)[number];

export function isPackagedSkillId(value: string): value is PackagedSkillId {
  return (PACKAGED_SKILL_IDS as readonly string[]).includes(value);
}

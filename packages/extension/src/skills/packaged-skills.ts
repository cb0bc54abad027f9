/**
 * The skills that ship with the add-on (packages/agent/skills/*.md, shared with the runner's
 * `--skill NAME`), bundled as text.
 * Seeded into `customSkills` on first run (skills-store.ts); the user may disable or delete them.
 * Enabled by default, as spec 000 has them: Wikipedia and FreeSkillz.xyz (YouTube transcripts,
 * public media metadata and downloads). The original's other API skills ship too, off until the
 * user turns them on (every enabled skill's tools go to every chat): Open-Meteo weather and Open
 * Library. Each id is also its file's name (packages/agent/skills/<id>.md): the packaged-skills test reads the
 * files by it.
 */
import freeskillz from "@webbrain/agent/skills/freeskillz-xyz.md";
import openLibrary from "@webbrain/agent/skills/open-library-books.md";
import openMeteo from "@webbrain/agent/skills/open-meteo-weather.md";
import wikipedia from "@webbrain/agent/skills/wikipedia.md";

export interface PackagedSkill {
  id: string;
  name: string;
  body: string;
  /** Enabled when first seeded. */
  enabledByDefault: boolean;
}

export const PACKAGED_SKILLS: readonly PackagedSkill[] = [
  { id: "wikipedia", name: "Wikipedia", body: wikipedia, enabledByDefault: true },
  { id: "freeskillz-xyz", name: "FreeSkillz.xyz", body: freeskillz, enabledByDefault: true },
  { id: "open-meteo-weather", name: "Open-Meteo weather", body: openMeteo, enabledByDefault: false },
  { id: "open-library-books", name: "Open Library", body: openLibrary, enabledByDefault: false },
];

// --skill FILE: skills load from Markdown files as the add-on imports them; a malformed one stops
// the command with the file named; two files' tools stay unique. --skill NAME: the skills
// packaged with the agent (the ones the add-on seeds), by id.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGED_SKILL_IDS, parseSkills } from "@webbrain/agent";
import { skillMarkdown } from "@webbrain/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../src/errors.js";
import { loadSkillFiles } from "../src/run/skill-files.js";
import { readTaskFile } from "../src/run/task-file.js";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "webbrain-skills-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function skill(name: string, tool: string, endpoint = "https://api.example/lookup"): string {
  return skillMarkdown({
    title: name,
    instructions: `Use ${tool}.`,
    tools: [
      { name: tool, kind: "http", method: "GET", endpoint, parameters: { type: "object", properties: {} } },
    ],
  });
}

describe("--skill files", () => {
  it("loads each file as an enabled skill with its tools", async () => {
    await writeFile(join(dir, "a.md"), skill("Books", "search_books"));
    await writeFile(join(dir, "b.md"), skill("Rates", "get_rates"));
    const skills = await loadSkillFiles([join(dir, "a.md"), join(dir, "b.md")]);
    expect(skills.map((s) => [s.id, s.enabled])).toEqual([
      ["books", true],
      ["rates", true],
    ]);
    expect(parseSkills(skills).flatMap((p) => p.tools.map((t) => t.name))).toEqual([
      "search_books",
      "get_rates",
    ]);
  });

  it("stops with the file named when a manifest is malformed or a tool name is taken twice", async () => {
    await writeFile(join(dir, "bad.md"), skill("Bad", "lookup", "http://example.com/x"));
    await expect(loadSkillFiles([join(dir, "bad.md")])).rejects.toThrow(UsageError);
    await expect(loadSkillFiles([join(dir, "bad.md")])).rejects.toThrow(/--skill .*bad\.md: .*https:\/\//);
    await writeFile(join(dir, "a.md"), skill("One", "same_tool"));
    await writeFile(join(dir, "b.md"), skill("Two", "same_tool"));
    await expect(loadSkillFiles([join(dir, "a.md"), join(dir, "b.md")])).rejects.toThrow(/already taken/);
    await expect(loadSkillFiles([join(dir, "missing.md")])).rejects.toThrow(
      /cannot read the file \(ENOENT\); a packaged skill is named by its id: wikipedia, freeskillz-xyz/,
    );
  });

  it("--skill NAME loads a packaged skill, the same file the add-on seeds, with its tools", async () => {
    const skills = await loadSkillFiles([...PACKAGED_SKILL_IDS]);
    expect(skills).toHaveLength(PACKAGED_SKILL_IDS.length);
    const require = createRequire(import.meta.url);
    for (const [index, id] of PACKAGED_SKILL_IDS.entries()) {
      const file = require.resolve(`@webbrain/agent/skills/${id}.md`);
      // importSkill trims the Markdown, as the add-on's import does.
      expect(skills[index]?.body).toBe((await readFile(file, "utf8")).trim());
      expect(skills[index]?.enabled).toBe(true);
    }
    const tools = parseSkills(skills).flatMap((p) => p.tools.map((t) => t.name));
    expect(tools).toEqual(
      expect.arrayContaining(["wikipedia_summary", "get_weather_forecast", "search_open_library_books"]),
    );
  });

  it("a file named like a packaged skill wins over it", async () => {
    await writeFile(join(dir, "wikipedia"), skill("My wiki", "my_wiki_lookup"));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const [own] = await loadSkillFiles(["wikipedia"]);
      expect(own?.name).toBe("My wiki");
    } finally {
      process.chdir(cwd);
    }
  });

  it("a task file line may name its own skills, relative to the file; a bad list names the line", async () => {
    const file = join(dir, "tasks.jsonl");
    await writeFile(
      file,
      [
        JSON.stringify({ task: "look up a book", skills: ["a.md"] }),
        JSON.stringify({ task: "no skills here", url: "https://example.com/" }),
      ].join("\n"),
    );
    const tasks = await readTaskFile(file);
    expect(tasks).toEqual([
      { task: "look up a book", skills: [join(dir, "a.md")] },
      { task: "no skills here", url: "https://example.com/" },
    ]);
    await writeFile(file, JSON.stringify({ task: "x", skills: "a.md" }));
    await expect(readTaskFile(file)).rejects.toThrow(/line 1: "skills" must be a list of skill file paths/);
  });
});

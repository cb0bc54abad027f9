/**
 * Settings -> Offline Wikipedia: the opt-in archive manager. The user picks a local .zim file;
 * it is copied into the add-on's private file system (OPFS) and recorded in IndexedDB
 * (archive-store.ts). Listing and removal as well.
 */

import { t } from "../shared/i18n.js";
import { installArchive, listArchives, removeArchive } from "./archive-store.js";
import { ZimFormatError } from "./zim-reader.js";

export function mountArchiveSection(parent: HTMLElement): void {
  const section = document.createElement("section");
  section.id = "offline-archives";
  const heading = document.createElement("h2");
  heading.textContent = t("offlineHeading");
  const intro = document.createElement("p");
  intro.className = "hint";
  intro.textContent = t("offlineIntro");
  const list = document.createElement("ul");
  list.id = "zim-archives";
  const label = document.createElement("label");
  label.htmlFor = "zim-file";
  label.textContent = t("offlinePick");
  const input = document.createElement("input");
  input.type = "file";
  input.id = "zim-file";
  input.accept = ".zim";
  const status = document.createElement("p");
  status.id = "zim-status";
  status.setAttribute("role", "status");
  section.append(heading, intro, list, label, input, status);
  parent.append(section);

  async function refresh(): Promise<void> {
    const archives = await listArchives();
    list.replaceChildren(
      ...archives.map((archive) => {
        const item = document.createElement("li");
        item.dataset.archiveId = archive.id;
        item.textContent = t(
          "offlineArchive",
          archive.title,
          archive.language || "?",
          archive.date || t("offlineUndated"),
          (archive.size / 1e6).toFixed(1),
        );
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "secondary";
        remove.textContent = t("removeButton");
        remove.addEventListener("click", () => void removeArchive(archive.id).then(refresh));
        item.append(" ", remove);
        return item;
      }),
    );
    if (archives.length === 0) {
      const empty = document.createElement("li");
      empty.className = "hint";
      empty.textContent = t("offlineNone");
      list.append(empty);
    }
  }

  input.addEventListener("change", () => {
    const file = input.files?.[0];
    if (!file) return;
    status.textContent = t("offlineInstalling", file.name);
    void installArchive(file)
      .then(async (record) => {
        status.textContent = t("offlineInstalled", record.title);
        await refresh();
      })
      .catch((error: unknown) => {
        status.textContent =
          error instanceof ZimFormatError
            ? t("offlineNotZim", file.name, error.message)
            : error instanceof Error
              ? error.message
              : String(error);
      })
      .finally(() => {
        input.value = "";
      });
  });
  void refresh().catch((error: unknown) => {
    status.textContent = error instanceof Error ? error.message : String(error);
  });
}

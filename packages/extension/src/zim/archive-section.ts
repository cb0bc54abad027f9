/**
 * Settings -> Offline Wikipedia: the opt-in archive manager. The user picks a local .zim file;
 * it is copied into the add-on's private file system (OPFS) and recorded in IndexedDB
 * (archive-store.ts); or gives a URL, and the archive is downloaded (resumable, verified:
 * archive-download.ts). Listing, resuming and removal as well.
 */

import { ZimFormatError } from "@webbrain/agent/offline-wikipedia";
import { t } from "../shared/i18n.js";
import {
  cancelDownload,
  createDownload,
  type DownloadProgress,
  type DownloadState,
  listDownloads,
  runDownload,
} from "./archive-download.js";
import { installArchive, listArchives, removeArchive } from "./archive-store.js";

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
  const download = downloadForm();
  const pending = document.createElement("ul");
  pending.id = "zim-downloads";
  const progress = document.createElement("progress");
  progress.id = "zim-download-progress";
  progress.hidden = true;
  section.append(heading, intro, list, label, input, download.form, pending, progress, status);
  parent.append(section);

  const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

  function showProgress({ state, resumes }: DownloadProgress): void {
    progress.hidden = false;
    if (state.total) {
      progress.max = state.total;
      progress.value = state.received;
    }
    if (state.status === "verifying") status.textContent = t("offlineDownloadVerifying");
    else if (state.status === "downloading")
      status.textContent =
        t("offlineDownloading", megabytes(state.received), state.total ? megabytes(state.total) : "?") +
        (resumes > 0 ? t("offlineDownloadResumed", resumes) : "");
  }

  /** One download at a time from this page; its end refreshes both lists. */
  let busy = false;
  function run(state: DownloadState): void {
    if (busy) return;
    busy = true;
    download.submit.disabled = true;
    void runDownload(state, showProgress)
      .then(async (record) => {
        status.textContent = t("offlineDownloadInstalled", record.title);
        download.url.value = "";
        download.sha256.value = "";
      })
      .catch((error: unknown) => {
        status.textContent = message(error);
      })
      .finally(() => {
        busy = false;
        download.submit.disabled = false;
        progress.hidden = true;
        void refresh();
      });
  }

  download.form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (busy) return;
    void createDownload(download.url.value, download.sha256.value)
      .then(run)
      .catch((error: unknown) => {
        status.textContent = message(error);
      });
  });

  async function refreshDownloads(): Promise<void> {
    const states = await listDownloads();
    pending.replaceChildren(
      ...states.map((state) => {
        const item = document.createElement("li");
        item.dataset.downloadId = state.id;
        item.textContent = t(
          "offlineDownloadInterrupted",
          state.fileName,
          megabytes(state.received),
          state.error ?? state.status,
        );
        const resume = document.createElement("button");
        resume.type = "button";
        resume.textContent = t("offlineDownloadResume");
        resume.addEventListener("click", () => run(state));
        const cancel = document.createElement("button");
        cancel.type = "button";
        cancel.className = "secondary";
        cancel.textContent = t("offlineDownloadCancel");
        cancel.addEventListener("click", () => void cancelDownload(state.id).then(refresh));
        item.append(" ", resume, " ", cancel);
        return item;
      }),
    );
  }

  async function refresh(): Promise<void> {
    if (!busy) await refreshDownloads();
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

function downloadForm(): {
  form: HTMLFormElement;
  url: HTMLInputElement;
  sha256: HTMLInputElement;
  submit: HTMLButtonElement;
} {
  const form = document.createElement("form");
  form.id = "zim-download";
  const heading = document.createElement("h3");
  heading.textContent = t("offlineDownloadHeading");
  const field = (id: string, text: string, type: string) => {
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = text;
    const input = document.createElement("input");
    input.id = id;
    input.type = type;
    return { label, input };
  };
  const url = field("zim-url", t("offlineDownloadUrl"), "url");
  url.input.required = true;
  url.input.placeholder = "https://download.kiwix.org/zim/wikipedia/…";
  const sha256 = field("zim-sha256", t("offlineDownloadSha256"), "text");
  sha256.input.spellcheck = false;
  const submit = document.createElement("button");
  submit.type = "submit";
  submit.id = "zim-download-start";
  submit.textContent = t("offlineDownloadStart");
  form.append(heading, url.label, url.input, sha256.label, sha256.input, submit);
  return { form, url: url.input, sha256: sha256.input, submit };
}

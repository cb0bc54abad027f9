/**
 * Content script run at document_start, before any page script: installs the page layer's
 * listener hook in the add-on's content-script realm, which the page script (page-script.js,
 * run later at document_idle) shares, so the tree sees controls wired by addEventListener.
 * See @webbrain/page's listeners.ts for what is recorded and why the page cannot see it.
 */
import { installListenerHook } from "@webbrain/page/listeners";

installListenerHook(window);

/**
 * Toolbar badge calls the API shortcut observer uses to show it is on (from MDN, like
 * webext.d.ts). Its webRequest types live in api-observer-webrequest.ts, apart from the
 * add-on's other webRequest declarations, since it needs request bodies and headers.
 */
declare namespace browser {
  namespace browserAction {
    function setBadgeText(details: { text: string }): Promise<void>;
    function setTitle(details: { title: string }): Promise<void>;
  }
}

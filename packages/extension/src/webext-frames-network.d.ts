/**
 * More of Firefox's WebExtension API, declared by hand from MDN like webext.d.ts (the namespaces
 * merge): frames (`webNavigation`), the network (`webRequest`) and `tabs.onUpdated`'s frame-free
 * cousins, used by the BrowserPort's frame tools and wait_for_stable.
 */

declare namespace browser {
  namespace webNavigation {
    interface FrameDetails {
      /** 0 is the tab's top document. */
      frameId: number;
      /** -1 for the top document. */
      parentFrameId: number;
      url: string;
      errorOccurred?: boolean;
    }
    function getAllFrames(details: { tabId: number }): Promise<FrameDetails[] | null>;
    interface CommittedDetails {
      tabId: number;
      frameId: number;
      url: string;
      /** "link", "typed", "form_submit", "reload", "auto_bookmark", ... (MDN TransitionType). */
      transitionType?: string;
    }
    const onBeforeNavigate: {
      addListener(listener: (details: { tabId: number; frameId: number; url: string }) => void): void;
    };
    const onCommitted: {
      addListener(listener: (details: CommittedDetails) => void): void;
      removeListener(listener: (details: CommittedDetails) => void): void;
    };
  }

  namespace webRequest {
    type ResourceType =
      | "main_frame"
      | "sub_frame"
      | "xmlhttprequest"
      | "script"
      | "stylesheet"
      | "image"
      | "media"
      | "font"
      | "websocket"
      | "other";
    interface RequestFilter {
      urls: string[];
      types?: ResourceType[];
      tabId?: number;
    }
    interface RequestDetails {
      requestId: string;
      url: string;
      /** -1 when no tab made the request (the add-on's own background fetches). */
      tabId: number;
      frameId: number;
      type: ResourceType;
      timeStamp: number;
    }
    interface RequestEvent {
      addListener(listener: (details: RequestDetails) => void, filter: RequestFilter): void;
      removeListener(listener: (details: RequestDetails) => void): void;
    }
    const onBeforeRequest: RequestEvent;
    const onCompleted: RequestEvent;
    const onErrorOccurred: RequestEvent;
  }
}

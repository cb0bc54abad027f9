/** browser.alarms and tab events the scheduler uses (MDN), beside webext.d.ts. */
declare namespace browser {
  namespace alarms {
    interface Alarm {
      name: string;
      scheduledTime: number;
      periodInMinutes?: number;
    }
    function create(
      name: string,
      info: { when?: number; delayInMinutes?: number; periodInMinutes?: number },
    ): void;
    function clear(name: string): Promise<boolean>;
    function getAll(): Promise<Alarm[]>;
    const onAlarm: WebExtEvent<(alarm: Alarm) => void>;
  }
}

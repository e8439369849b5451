import { LiveLimits, LiveTurnDetailLimits, type TLiveHistoryEntry } from '@persona/contract';

/**
 * A conversation's history as both sides keep it: capped at LiveLimits.historyMaxTurns turns,
 * sent to the portal (for a resume) one call at a time, later changes coalesced into the next.
 */
export class ConversationHistory {
  readonly entries: TLiveHistoryEntry[];
  private inFlight = false;
  private dirty = false;
  /** The last store failed (the portal or its database was unreachable): sent again by retryUnsaved. */
  private isUnsaved = false;

  constructor(
    initial: readonly TLiveHistoryEntry[],
    private readonly store: (history: TLiveHistoryEntry[]) => Promise<void>,
    private readonly onStoreError: (err: unknown) => void,
    private readonly isOver: () => boolean,
  ) {
    this.entries = [...initial];
  }

  remember(entry: TLiveHistoryEntry) {
    this.entries.push(entry);
    const max = LiveLimits.historyMaxTurns * 2;
    if (this.entries.length > max) this.entries.splice(0, this.entries.length - max);
  }

  /** Takes back an entry that turned out empty (a spoken turn without words). */
  forget(entry: TLiveHistoryEntry) {
    const at = this.entries.indexOf(entry);
    if (at >= 0) this.entries.splice(at, 1);
  }

  report() {
    boundDetails(this.entries);
    if (this.inFlight) {
      this.dirty = true;
      return;
    }
    this.inFlight = true;
    this.dirty = false;
    void this.store([...this.entries])
      .then(
        () => (this.isUnsaved = false),
        (err: unknown) => {
          this.isUnsaved = true;
          this.onStoreError(err);
        },
      )
      .finally(() => {
        this.inFlight = false;
        if (this.dirty && !this.isOver()) this.report();
      });
  }

  /** Sends the history again if its last store failed (called once the portal answers again). */
  retryUnsaved() {
    if (this.isUnsaved && !this.inFlight) this.report();
  }
}

/** Drops the detail of the oldest turns until the history's details fit `LiveTurnDetailLimits.historyChars` (ADR 102). */
export function boundDetails(entries: TLiveHistoryEntry[]) {
  let total = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (!e.detail) continue;
    total += JSON.stringify(e.detail).length;
    if (total > LiveTurnDetailLimits.historyChars) delete e.detail;
  }
}

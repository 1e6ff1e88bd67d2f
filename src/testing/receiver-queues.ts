// Bounds what the fake holds for each receiver of its deliveries. The service gives a receiver 30 s
// to answer (spec: Limits → webhook reply time-out), so a delivery the receiver has not answered
// by then is given up; the fake also bounds how many it holds meanwhile, so a receiver that is
// slow or never answers cannot make it hold a delivery (and a connection) per event.

/** How many deliveries the fake holds for one receiver (the scheme, host and port of its address). */
export const RECEIVER_LIMITS = {
  /** POSTs in flight to it at once. */
  inFlight: 8,
  /** Deliveries waiting for one of those to end; one more is dropped, never sent. */
  waiting: 500,
} as const;

/** Why a delivery was never answered: dropped, timed out, or abandoned when the fake closed. */
export type NoTurn = 'dropped' | 'timedOut' | 'closed';

/** A delivery's turn to POST; `end()` when its answer came or it was given up. */
export interface Turn {
  end(): void;
}

interface Waiter {
  deadline: number;
  settle(outcome: Turn | NoTurn): void;
}

/** One receiver's deliveries: those in flight, and the line of those waiting, oldest first. */
class ReceiverLine {
  inFlight = 0;
  readonly waiting: Waiter[] = [];
  /** Gives up on the oldest waiting delivery when its time is up (the others come later). */
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** The receiver an address belongs to: its origin (an address that cannot be parsed is its own). */
function receiverOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

/**
 * The turns of the deliveries to each receiver: at most {@link RECEIVER_LIMITS}.inFlight at once,
 * the others in line, oldest first, up to {@link RECEIVER_LIMITS}.waiting; past that a delivery is
 * dropped at once. A delivery still in line at its deadline is given up (timed out).
 */
export class ReceiverQueues {
  readonly #lines = new Map<string, ReceiverLine>();

  /**
   * Waits for the turn of a delivery to `url`, made to be answered by `deadline` (ms since the
   * epoch); resolves to why it never gets one instead.
   */
  turn(url: string, deadline: number): Promise<Turn | NoTurn> {
    const key = receiverOf(url);
    const line = this.#lines.get(key) ?? this.#open(key);
    if (line.inFlight < RECEIVER_LIMITS.inFlight) return Promise.resolve(this.#start(key, line));
    if (line.waiting.length >= RECEIVER_LIMITS.waiting) return Promise.resolve('dropped');
    return new Promise((settle) => {
      line.waiting.push({ deadline, settle });
      if (line.waiting.length === 1) this.#watch(key, line);
    });
  }

  /** Ends every wait (the fake closes): each waiting delivery is abandoned. */
  close(): void {
    for (const line of this.#lines.values()) {
      clearTimeout(line.timer);
      for (const waiter of line.waiting.splice(0)) waiter.settle('closed');
    }
    this.#lines.clear();
  }

  #open(key: string): ReceiverLine {
    const line = new ReceiverLine();
    this.#lines.set(key, line);
    return line;
  }

  #start(key: string, line: ReceiverLine): Turn {
    line.inFlight++;
    let ended = false;
    return {
      end: () => {
        if (ended) return;
        ended = true;
        line.inFlight--;
        this.#next(key, line);
      },
    };
  }

  /** Gives the freed turn to the oldest waiting delivery whose time is not up. */
  #next(key: string, line: ReceiverLine): void {
    this.#expire(line);
    const waiter = line.waiting.shift();
    if (waiter) waiter.settle(this.#start(key, line));
    this.#watch(key, line);
  }

  /** Gives up on the waiting deliveries whose deadline passed (the line is oldest first). */
  #expire(line: ReceiverLine): void {
    const now = Date.now();
    while (line.waiting.length > 0 && (line.waiting[0] as Waiter).deadline <= now) {
      line.waiting.shift()?.settle('timedOut');
    }
  }

  /** Sets the timer for the oldest waiting deliveries; forgets a receiver with nothing held. */
  #watch(key: string, line: ReceiverLine): void {
    clearTimeout(line.timer);
    line.timer = undefined;
    const oldest = line.waiting[0];
    if (oldest) {
      line.timer = setTimeout(() => {
        this.#expire(line);
        this.#watch(key, line);
      }, oldest.deadline - Date.now());
    } else if (line.inFlight === 0 && this.#lines.get(key) === line) this.#lines.delete(key);
  }
}

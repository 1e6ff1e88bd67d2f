// Bounds what the fake holds for the receivers of its deliveries. The service gives a receiver 30 s
// to answer (spec: Limits → webhook reply time-out), so a delivery the receiver has not answered
// by then is given up; the fake also bounds how many it holds meanwhile, for each receiver and
// for all of them together, so receivers that are slow or never answer, however many, cannot make
// it hold a delivery (and a connection) per event.

/**
 * How many deliveries the fake holds: for one receiver (the scheme, host and port of its address),
 * and for all receivers together.
 */
export const RECEIVER_LIMITS = {
  /** POSTs in flight to one receiver at once. */
  inFlight: 8,
  /** Deliveries waiting for a turn to one receiver; one more is dropped, never sent. */
  waiting: 500,
  /** POSTs in flight to all receivers at once; the next waits its turn. */
  inFlightInAll: 64,
  /** Deliveries waiting for a turn to any receiver; one more is dropped, never sent. */
  waitingInAll: 5000,
} as const;

/** Why a delivery was never answered: dropped, timed out, or abandoned when the fake closed. */
export type NoTurn = 'dropped' | 'timedOut' | 'closed';

/** A delivery's turn to POST; `end()` when its answer came or it was given up. */
export interface Turn {
  end(): void;
}

interface Waiter {
  /** When it is given up, on the clock of {@link now}. */
  deadline: number;
  settle(outcome: Turn | NoTurn): void;
}

/**
 * The clock of deadlines (ms): monotonic, so a test that sets the system time (`vi.setSystemTime`)
 * neither gives up a delivery early nor makes one wait for years.
 */
export const now = () => performance.now();

/** One receiver's deliveries: those in flight, and the line of those waiting, oldest first. */
class ReceiverLine {
  inFlight = 0;
  readonly waiting: Waiter[] = [];
  /** Gives up on the oldest waiting delivery when its time is up (the others come later). */
  timer: ReturnType<typeof setTimeout> | undefined;
  constructor(readonly key: string) {}
}

/** The receiver an address belongs to: its origin (an address that cannot be parsed is its own). */
function receiverOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

/**
 * The turns of the deliveries to each receiver: at most {@link RECEIVER_LIMITS}.inFlight at once
 * to one receiver and `inFlightInAll` to all, the others in their receiver's line, oldest first,
 * up to `waiting` for one receiver and `waitingInAll` for all; past that a delivery is dropped at
 * once. A turn freed goes to the receivers held back only by the limit of all, each in turn. A
 * delivery still in line at its deadline is given up (timed out).
 */
export class ReceiverQueues {
  readonly #lines = new Map<string, ReceiverLine>();
  /** Lines with a delivery waiting that only the limit of all in flight holds back, each in turn. */
  readonly #ready = new Set<ReceiverLine>();
  #inFlight = 0;
  #waiting = 0;
  #closed = false;

  /**
   * Waits for the turn of a delivery to `url`, to be answered by `deadline` (on the clock of
   * {@link now}); resolves to why it never gets one instead.
   */
  turn(url: string, deadline: number): Promise<Turn | NoTurn> {
    if (this.#closed) return Promise.resolve('closed');
    const key = receiverOf(url);
    const line = this.#lines.get(key) ?? this.#open(key);
    const { inFlight, inFlightInAll, waiting, waitingInAll } = RECEIVER_LIMITS;
    if (line.waiting.length === 0 && line.inFlight < inFlight && this.#inFlight < inFlightInAll) {
      return Promise.resolve(this.#start(line));
    }
    if (line.waiting.length >= waiting || this.#waiting >= waitingInAll) return Promise.resolve('dropped');
    return new Promise((settle) => {
      line.waiting.push({ deadline, settle });
      this.#waiting++;
      if (line.inFlight < inFlight) this.#ready.add(line);
      if (line.waiting.length === 1) this.#watch(line);
    });
  }

  /** Ends every wait (the fake closes): each waiting delivery, and any asked for later, is abandoned. */
  close(): void {
    this.#closed = true;
    for (const line of this.#lines.values()) {
      clearTimeout(line.timer);
      for (const waiter of line.waiting.splice(0)) waiter.settle('closed');
    }
    this.#lines.clear();
    this.#ready.clear();
    this.#waiting = 0;
  }

  #open(key: string): ReceiverLine {
    const line = new ReceiverLine(key);
    this.#lines.set(key, line);
    return line;
  }

  #start(line: ReceiverLine): Turn {
    line.inFlight++;
    this.#inFlight++;
    let ended = false;
    return {
      end: () => {
        if (ended) return;
        ended = true;
        line.inFlight--;
        this.#inFlight--;
        if (line.waiting.length > 0) this.#ready.add(line);
        this.#next();
        this.#watch(line);
      },
    };
  }

  /**
   * Gives the turns free to the lines that wait for one, each in turn (a line served goes to the
   * back), each to its oldest waiting delivery whose time is not up.
   */
  #next(): void {
    for (const line of this.#ready) {
      if (this.#inFlight >= RECEIVER_LIMITS.inFlightInAll) return;
      this.#ready.delete(line);
      this.#expire(line);
      const waiter = line.waiting.shift();
      if (waiter) {
        this.#waiting--;
        waiter.settle(this.#start(line));
      }
      if (line.waiting.length > 0 && line.inFlight < RECEIVER_LIMITS.inFlight) this.#ready.add(line);
      this.#watch(line);
    }
  }

  /** Gives up on the waiting deliveries whose deadline passed (the line is oldest first). */
  #expire(line: ReceiverLine): void {
    const time = now();
    while (line.waiting.length > 0 && (line.waiting[0] as Waiter).deadline <= time) {
      this.#waiting--;
      line.waiting.shift()?.settle('timedOut');
    }
  }

  /** Sets the timer for the oldest waiting deliveries; forgets a receiver with nothing held. */
  #watch(line: ReceiverLine): void {
    clearTimeout(line.timer);
    line.timer = undefined;
    const oldest = line.waiting[0];
    if (oldest) {
      line.timer = setTimeout(
        () => {
          this.#expire(line);
          this.#watch(line);
        },
        // a delay past 2³¹−1 ms would fire at once
        Math.min(2 ** 31 - 1, Math.max(0, oldest.deadline - now())),
      );
      return;
    }
    this.#ready.delete(line);
    if (line.inFlight === 0 && this.#lines.get(line.key) === line) this.#lines.delete(line.key);
  }
}

import type { Claim } from './claims.js';
import type { ErrorContext } from './events.js';
import type { KeyAction, Outcome } from './outcomes.js';

/** Where a delivery stands as it goes through the pipeline; the error reports read it. */
export interface Delivery {
  /** What a report on 'error' says of the delivery. */
  context: Omit<ErrorContext, 'stage'>;
  /** Keeps the runtime alive for background listeners (see `HandleOptions.waitUntil`). */
  waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  /** The key this delivery holds a claim on, once it holds one. */
  claim?: Claim;
  /** The key the dedupe store holds in a transaction while the delivery is processed (no claim then). */
  transactionKey?: string;
  /** The step under way: what an unexpected failure is reported as. */
  stage: ErrorContext['stage'];
  /** The background dispatch, once started: the listeners running after the answer. */
  background?: Promise<void>;
  /** Work still running past its answer (a late responder, 'await', a queue function): its end decides the key. */
  lateWork?: Promise<KeyAction>;
}

/** How a delivery ended: a row of the outcome table, and a CRM reply when there is one. */
export interface Ending {
  outcome: Outcome;
  reply?: unknown;
}

// The ledger: where the budget's levels live, in this process (in-process-ledger.ts) or in PostgreSQL, shared by
// every replica (postgres-ledger.ts). A take serves several calls in one step (one statement when shared).
import type { BucketFigures } from "./figures.ts";

export interface TakeRequest {
  key: string;
  figures: BucketFigures;
  /** Tokens the bucket must hold for the take (1, or 1 + the reserve for a cache read). */
  need: number;
}

export interface TakeAnswer {
  granted: boolean;
  /** When not granted: ms until the emptiest bucket can give (by the ledger's clock). */
  waitMs: number;
  /** When not granted: the key of the bucket that waits longest. */
  emptyKey?: string;
}

/**
 * What the ledger answered one call of a take: its answer, or "held" when it was not tried, because an earlier call
 * of the same take was refused a bucket it shares.
 */
export type CallAnswer = TakeAnswer | "held";

/** A bucket's tokens asked for, or handed back, beyond the calls of a take: a replica's slice of it. */
export interface SliceTokens {
  key: string;
  figures: BucketFigures;
  tokens: number;
}

/**
 * What a take does besides its calls: Azure's counts since the replica's last take lower the levels above them
 * (`caps`, first: corrections ride on the next take rather than each costing a statement); the unspent tokens of
 * slices that ended are put back (never into a bucket a 429 blocks); and, after every call, slices of the buckets the replica is busy with, from what is left above
 * each one's `floor` (the reserve that cache reads leave) and at most `share` of it, never from a bucket a call of
 * the take was refused or a 429 blocks.
 */
export interface LeaseRequest {
  caps: SliceTokens[];
  gives: SliceTokens[];
  wants: (SliceTokens & { floor: number })[];
  share: number;
}

export interface TakeResult {
  answers: CallAnswer[];
  /** The tokens leased, per bucket key (a whole number, at least 1, or absent). */
  leased: Map<string, number>;
}

/** The levels of the buckets. Every method is atomic over the buckets it names. */
export interface BudgetLedger {
  /** Round trips to a shared ledger since start (PostgreSQL statements); 0 for one in this process. */
  readonly statements: number;
  /** Whether replicas share it: only then does a replica lease slices of its buckets (ArmBudgetOptions.leaseMs). */
  readonly shared: boolean;
  /** takeInOrder, and the slices of `lease`, in the same step (one statement when shared). */
  takeAndLease(calls: TakeRequest[][], lease: LeaseRequest): Promise<TakeResult>;
  /**
   * Takes for several calls (each its buckets' requests), in the order given. Each call is all or nothing, as if
   * alone: one token from every bucket if each holds `need`, otherwise nothing. A call refused holds its buckets for
   * the rest of the take, so a later call that shares one is not tried ("held") and never takes the token an
   * earlier one waits for.
   */
  takeInOrder(calls: TakeRequest[][]): Promise<CallAnswer[]>;
  /** Azure's count: the level is lowered to `remaining` if it is above. */
  correct(key: string, figures: BucketFigures, remaining: number): Promise<void>;
  /** A 429: the bucket is empty, gives nothing for `blockMs`, and then holds one token (Azure's Retry-After). */
  drain(key: string, figures: BucketFigures, blockMs: number): Promise<void>;
  close(): Promise<void>;
}

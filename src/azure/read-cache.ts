// Reads for pollers, without spending Azure's budget per poll. Orca polls every stage every few seconds and Deck reads
// clusters constantly, while Azure allows a scale set about a dozen GETs a minute. Every read of a scale set goes
// through one short-lived entry: concurrent reads share one Azure call, a read within the TTL is answered from
// memory, and our own writes (and any fresh read an operation makes) replace what is there.
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import type { RetryConfig } from "./retry-policy.ts";
import type { AccountRegistry } from "./accounts.ts";
import { observe } from "./observe.ts";
import type { ScaleSetListener, ScaleSetRef, ScaleSetSnapshot, WriteKind } from "./vmss-gateway.ts";
import type { AutoscaleSettingWire } from "./autoscale-gateway.ts";

/** A value and when Azure was asked for it (the start of the call: the value is at least this fresh). */
export interface Fresh<V> {
  value: V;
  readAt: number;
}

interface Entry<V> {
  value?: Fresh<V>;
  inFlight?: Promise<Fresh<V>>;
  /** Bumped by invalidate(): a fetch that started before it must not store what it read. */
  generation: number;
  /** When invalidate() was last called: a value read before then is not kept. */
  invalidatedAt: number;
  /** When a reader last asked for it (get): while that is recent, reads made elsewhere are kept for it (put). */
  askedAt: number;
}

/** How a get was answered: from a fresh value, by joining a fetch under way, or by a fetch of its own. */
export type LookupResult = "hit" | "coalesced" | "miss";

export interface CoalescingCacheOptions {
  ttlMs: number;
  /** Told how each get was answered (the read-cache metric). */
  onLookup?: (result: LookupResult) => void;
  now?: () => number;
  /** Entries kept before expired ones are dropped, whenever they were last dropped. */
  maxEntries?: number;
  /** How long after a reader last asked for a key a value read elsewhere is kept for it (default INTEREST_MS). */
  interestMs?: number;
}

/**
 * How long a key stays of interest after a reader asked for it: a pipeline reads a server group when its stage starts
 * and again when the operation it started has ended, minutes later. Only a mark is kept that long; a value is kept
 * for the TTL.
 */
export const INTEREST_MS = 15 * 60_000;

/**
 * A cache in which concurrent gets of one key share one fetch, and a value is served for ttlMs after it was read.
 * A value read elsewhere (put) is kept only for a key a reader asked for within interestMs: values are kept for what
 * somebody watches, not for everything read. Kept for every scale set an operation read, a burst of 5,000 resizes
 * over 1,000 scale sets held some 540 of them, each with its VMs (16 KB with five), 8.7 MB that nobody read.
 * What can serve nothing any more is dropped once per ttlMs, as the cache is used: expired values at once, the
 * entry itself once its key is of no interest either.
 */
export class CoalescingCache<V> {
  readonly ttlMs: number;
  readonly #now: () => number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, Entry<V>>();
  readonly #onLookup: (result: LookupResult) => void;
  readonly #interestMs: number;
  #droppedAt = -Infinity;

  constructor(options: CoalescingCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.#onLookup = options.onLookup ?? (() => {});
    this.#now = options.now ?? Date.now;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#interestMs = Math.max(options.interestMs ?? INTEREST_MS, options.ttlMs);
  }

  get(key: string, fetch: () => Promise<V>): Promise<Fresh<V>> {
    const entry = this.#entry(key, true);
    entry.askedAt = this.#now();
    if (entry.value && this.#now() - entry.value.readAt < this.ttlMs) {
      this.#onLookup("hit");
      return Promise.resolve(entry.value);
    }
    if (entry.inFlight) {
      this.#onLookup("coalesced");
      return entry.inFlight;
    }
    this.#onLookup("miss");
    const generation = entry.generation;
    const readAt = this.#now();
    const call: Promise<Fresh<V>> = fetch().then(
      (value) => {
        const fresh = { value, readAt };
        if (entry.generation === generation && (!entry.value || entry.value.readAt <= readAt)) entry.value = fresh;
        if (entry.inFlight === call) entry.inFlight = undefined;
        return fresh;
      },
      (err: unknown) => {
        // Failures are not kept: the next read asks Azure again.
        if (entry.inFlight === call) entry.inFlight = undefined;
        throw err;
      },
    );
    entry.inFlight = call;
    return call;
  }

  /**
   * A value read elsewhere, as fresh as `readAt`: kept if a reader asked for the key within interestMs, unless what
   * is there is fresher.
   */
  put(key: string, value: V, readAt = this.#now()): void {
    const entry = this.#entry(key, false);
    if (!entry || this.#now() - entry.askedAt >= this.#interestMs || readAt < entry.invalidatedAt) return;
    if (!entry.value || entry.value.readAt <= readAt) entry.value = { value, readAt };
  }

  /** What was read for key is no longer true: the next get asks Azure, and a fetch already under way is not kept. */
  invalidate(key: string): void {
    const entry = this.#entry(key, true);
    entry.generation++;
    entry.invalidatedAt = this.#now();
    entry.value = undefined;
    entry.inFlight = undefined;
  }

  invalidateWhere(matches: (key: string) => boolean): void {
    // The keys first: an invalidation may drop expired entries, and each of these must still record its own.
    for (const key of [...this.#entries.keys()]) if (matches(key)) this.invalidate(key);
  }

  /** Entries kept now (fresh, in flight, or not yet dropped). */
  get size(): number {
    return this.#entries.size;
  }

  #entry(key: string, create: true): Entry<V>;
  #entry(key: string, create: false): Entry<V> | undefined;
  #entry(key: string, create: boolean): Entry<V> | undefined {
    const now = this.#now();
    if (now - this.#droppedAt >= this.ttlMs) this.#dropExpired(now);
    let entry = this.#entries.get(key);
    if (!entry && create) {
      if (this.#entries.size >= this.#maxEntries) this.#dropExpired(now);
      entry = { generation: 0, invalidatedAt: -Infinity, askedAt: -Infinity };
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /**
   * Drops every value read ttlMs ago or more, and every entry that can serve nothing: no fetch under way, no value,
   * no invalidation within ttlMs, and no reader's interest within interestMs. The invalidation matters: a value read
   * before an invalidation may still be put afterwards, and with the entry gone nothing would refuse it, but
   * anything read before an invalidation that old has expired already.
   */
  #dropExpired(now: number): void {
    this.#droppedAt = now;
    for (const [key, entry] of this.#entries) {
      if (entry.value && now - entry.value.readAt >= this.ttlMs) entry.value = undefined;
      if (
        !entry.inFlight &&
        !entry.value &&
        now - entry.invalidatedAt >= this.ttlMs &&
        now - entry.askedAt >= this.#interestMs
      )
        this.#entries.delete(key);
    }
  }
}

function scaleSetKey(ref: Pick<ScaleSetRef, "account" | "resourceGroup" | "name">): string {
  return `${ref.account}\n${ref.resourceGroup.toLowerCase()}\n${ref.name.toLowerCase()}`;
}

/** Where scale sets are listed: one resource group, or the whole subscription. */
export type ListingScope = { account: string; resourceGroup?: string };

function listingKey(scope: ListingScope): string {
  return `${scope.account}\n${scope.resourceGroup?.toLowerCase() ?? "*"}`;
}

export interface ScaleSetReadsOptions {
  ttlMs: number;
  /** Retries for one read (a poller's request is waiting): a few quick ones, not a deployment's patience. */
  retry: RetryConfig;
  now?: () => number;
  onLookup?: (result: LookupResult) => void;
}

/**
 * Scale sets and their VMs, and listings of scale sets, each read through a coalescing cache. It listens to every
 * gateway of the account registry: a full read made by an operation is kept for a scale set a reader asked for
 * within INTEREST_MS (a pipeline's next read of it is then served), and a write invalidates the scale
 * set's entry when it is sent and again when it ends (a delete, the account's listings too). Operations never read
 * from it: they plan on reads of their own.
 */
export class ScaleSetReads implements ScaleSetListener {
  readonly ttlMs: number;
  readonly #accounts: AccountRegistry;
  /** The retry profile of every read made here (a poller is waiting): readRetry of the service's. */
  readonly retry: RetryConfig;
  readonly #snapshots: CoalescingCache<ScaleSetSnapshot>;
  readonly #listings: CoalescingCache<VirtualMachineScaleSet[]>;
  /** Each resource group's autoscale settings: one listing serves every scale set of the group. */
  readonly #autoscale: CoalescingCache<AutoscaleSettingWire[]>;

  constructor(accounts: AccountRegistry, options: ScaleSetReadsOptions) {
    this.#accounts = accounts;
    this.retry = options.retry;
    this.ttlMs = options.ttlMs;
    this.#snapshots = new CoalescingCache({ ttlMs: options.ttlMs, now: options.now, onLookup: options.onLookup });
    this.#listings = new CoalescingCache({ ttlMs: options.ttlMs, now: options.now, onLookup: options.onLookup });
    this.#autoscale = new CoalescingCache({ ttlMs: options.ttlMs, now: options.now });
  }

  /**
   * The scale set and its VMs, observed (observe.ts): throws GaveUpError when the read gives up (404: notFound).
   * With the autoscale setting that targets it (ScaleSetSnapshot.autoscale: null, none; undefined, the settings could
   * not be read, e.g. the role lacks Microsoft.Insights/autoscalesettings/read: the reads still answer).
   */
  async snapshot(ref: ScaleSetRef): Promise<Fresh<ScaleSetSnapshot>> {
    const read = await this.#snapshots.get(scaleSetKey(ref), () => {
      const gateway = this.#accounts.gateway(ref);
      return observe((signal) => gateway.read({ withInstances: true, signal }), { retry: this.retry });
    });
    const settings = await this.#autoscaleSettings(ref);
    const { autoscale: _asRead, ...value } = read.value;
    if (!settings) return { ...read, value };
    const id = (read.value.vmss.id ?? "").toLowerCase();
    const setting = settings.value.find((s) => (s.properties?.targetResourceUri ?? "").toLowerCase() === id) ?? null;
    return { value: { ...value, autoscale: setting }, readAt: Math.min(read.readAt, settings.readAt) };
  }

  async #autoscaleSettings(ref: ScaleSetRef): Promise<Fresh<AutoscaleSettingWire[]> | undefined> {
    try {
      return await this.#autoscale.get(listingKey(ref), () =>
        observe((signal) => this.#accounts.autoscale(ref.account).list(ref.resourceGroup, signal), {
          retry: this.retry,
        }),
      );
    } catch {
      return undefined;
    }
  }

  /** The scale sets of a resource group (or of the account's subscription), as ARM lists them; observed as snapshot() is. */
  list(scope: ListingScope): Promise<Fresh<VirtualMachineScaleSet[]>> {
    return this.#listings.get(listingKey(scope), () =>
      observe(
        async (signal) => {
          const client = this.#accounts.client(scope.account);
          const pages = scope.resourceGroup
            ? client.virtualMachineScaleSets.list(scope.resourceGroup, { abortSignal: signal })
            : client.virtualMachineScaleSets.listAll({ abortSignal: signal });
          const out: VirtualMachineScaleSet[] = [];
          for await (const vmss of pages) out.push(vmss);
          return out;
        },
        { retry: this.retry },
      ),
    );
  }

  /**
   * Forget what was read of this scale set, and the account's listings (Orca's force-cache refresh after a deploy):
   * the next read asks Azure.
   */
  refresh(ref: Pick<ScaleSetRef, "account" | "resourceGroup" | "name">): void {
    this.#snapshots.invalidate(scaleSetKey(ref));
    this.#autoscale.invalidate(listingKey(ref));
    this.forgetListings(ref.account);
  }

  /** Forget everything read of an account: the next reads ask Azure (a decision to write is made on those). */
  forgetAccount(account: string): void {
    this.#snapshots.invalidateWhere((key) => key.startsWith(`${account}\n`));
    this.#autoscale.invalidateWhere((key) => key.startsWith(`${account}\n`));
    this.forgetListings(account);
  }

  /** Forget the account's listings of scale sets: the next listing asks Azure. */
  forgetListings(account: string): void {
    this.#listings.invalidateWhere((key) => key.startsWith(`${account}\n`));
  }

  onRead(ref: ScaleSetRef, snapshot: ScaleSetSnapshot, readAt: number): void {
    if (snapshot.vms) this.#snapshots.put(scaleSetKey(ref), snapshot, readAt);
  }

  onWrite(ref: ScaleSetRef, kind: WriteKind): void {
    this.#snapshots.invalidate(scaleSetKey(ref));
    if (kind === "autoscale") this.#autoscale.invalidate(listingKey(ref));
    // Listings serve names, regions and creation times: only a create or a delete changes those.
    if (kind === "delete" || kind === "create") this.forgetListings(ref.account);
  }
}

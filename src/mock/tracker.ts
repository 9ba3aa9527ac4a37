// Which records changed since the last save, without scanning the state: the state handed to
// handlers is a thin Proxy over the plain one. A write anywhere inside a record (at any depth)
// marks that record (collection + key); a write to another top-level field marks the "root"
// part. Reads return the same object every time (proxies are cached), so identity comparisons
// between two reads hold. The plain state underneath never holds a proxy: what is stored is
// unwrapped first, so it serializes and clones as plain data.
import type { MockState } from './state.js';

/** The keyed collections saved record by record; everything else but `events` is the root part. */
export const KEYED_COLLECTIONS = [
  'merchants',
  'keys',
  'wallets',
  'customers',
  'cards',
  'transactions',
  'addresses',
  'deposits',
  'endpoints',
  'deliveries',
  'idempotency',
] as const;
export type KeyedCollection = (typeof KEYED_COLLECTIONS)[number];
const KEYED = new Set<string>(KEYED_COLLECTIONS);

type Obj = Record<string | symbol, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null;

export class ChangeTracker {
  /** collection -> keys written since the last take() */
  private readonly marked = new Map<string, Set<string>>();
  /** collections replaced as a whole (`state.deliveries = {}`) */
  private readonly replaced = new Set<string>();
  private rootChanged = false;
  private readonly proxies = new WeakMap<object, object>();
  private readonly raws = new WeakMap<object, object>();

  /** The tracked view of a plain state. */
  wrap(raw: MockState): MockState {
    return this.proxyOf(raw as unknown as Obj, this.rootHandler()) as unknown as MockState;
  }

  /** The plain object behind a tracked one (itself when it is not tracked). */
  unwrap<T>(v: T): T {
    return (isObject(v) ? ((this.raws.get(v) as T | undefined) ?? v) : v) as T;
  }

  get pending(): boolean {
    return this.rootChanged || this.marked.size > 0 || this.replaced.size > 0;
  }

  /** What changed since the last call, and forget it. */
  take(): { root: boolean; replaced: string[]; marked: Map<string, Set<string>> } {
    const out = { root: this.rootChanged, replaced: [...this.replaced], marked: new Map(this.marked) };
    this.rootChanged = false;
    this.replaced.clear();
    this.marked.clear();
    return out;
  }

  /** Marks again what a failed save held, so that the next save carries it. */
  restore(taken: { root: boolean; replaced: string[]; marked: Map<string, Set<string>> }): void {
    if (taken.root) this.rootChanged = true;
    for (const c of taken.replaced) this.replaced.add(c);
    for (const [c, keys] of taken.marked) for (const k of keys) this.mark(c, k);
  }

  private mark(collection: string, key: string): void {
    let s = this.marked.get(collection);
    if (!s) this.marked.set(collection, (s = new Set()));
    s.add(key);
  }

  private proxyOf(raw: Obj, handler: ProxyHandler<Obj>): Obj {
    const known = this.proxies.get(raw);
    if (known) return known as Obj;
    const p = new Proxy(raw, handler);
    this.proxies.set(raw, p);
    this.raws.set(p, raw);
    return p;
  }

  /** Stored values hold no proxy: unwrap the value and, shallowly, its direct children. */
  private plain(v: unknown): unknown {
    const raw = this.unwrap(v);
    if (isObject(raw)) {
      for (const k of Object.keys(raw)) {
        const child = raw[k];
        if (isObject(child) && this.raws.has(child)) raw[k] = this.raws.get(child);
      }
    }
    return raw;
  }

  private rootHandler(): ProxyHandler<Obj> {
    const onWrite = (prop: string | symbol) => {
      if (typeof prop !== 'string' || prop === 'events') return; // events: saved by sequence number
      if (KEYED.has(prop)) this.replaced.add(prop);
      else this.rootChanged = true;
    };
    const rootPart = this.deepHandler(() => (this.rootChanged = true));
    return {
      get: (t, prop) => {
        const v = t[prop];
        if (!isObject(v) || typeof prop !== 'string' || prop === 'events') return v;
        if (KEYED.has(prop)) return this.proxyOf(v, this.collectionHandler(prop));
        return this.proxyOf(v, rootPart);
      },
      set: (t, prop, value) => {
        t[prop] = this.plain(value);
        onWrite(prop);
        return true;
      },
      deleteProperty: (t, prop) => {
        delete t[prop];
        onWrite(prop);
        return true;
      },
    };
  }

  private collectionHandler(collection: string): ProxyHandler<Obj> {
    const recordHandlers = new Map<string, ProxyHandler<Obj>>();
    return {
      get: (t, key) => {
        const v = t[key];
        if (!isObject(v) || typeof key !== 'string') return v;
        const known = this.proxies.get(v);
        if (known) return known;
        let h = recordHandlers.get(key);
        if (!h) {
          h = this.deepHandler(() => this.mark(collection, key));
          recordHandlers.set(key, h);
        }
        return this.proxyOf(v, h);
      },
      set: (t, key, value) => {
        t[key] = this.plain(value);
        if (typeof key === 'string') this.mark(collection, key);
        return true;
      },
      deleteProperty: (t, key) => {
        delete t[key];
        if (typeof key === 'string') this.mark(collection, key);
        return true;
      },
    };
  }

  /** A record (or the root part) at any depth: every write calls `touched`. */
  private deepHandler(touched: () => void): ProxyHandler<Obj> {
    const handler: ProxyHandler<Obj> = {
      get: (t, prop) => {
        const v = t[prop];
        return isObject(v) ? this.proxyOf(v, handler) : v;
      },
      set: (t, prop, value) => {
        t[prop] = this.plain(value);
        touched();
        return true;
      },
      deleteProperty: (t, prop) => {
        delete t[prop];
        touched();
        return true;
      },
      defineProperty: (t, prop, desc) => {
        touched();
        return Reflect.defineProperty(
          t,
          prop,
          desc.value !== undefined ? { ...desc, value: this.plain(desc.value) } : desc,
        );
      },
    };
    return handler;
  }
}

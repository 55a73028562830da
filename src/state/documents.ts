import { LRUCache } from 'lru-cache';
import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

/** A chat document as the gateway keeps it: who owns it, where its text is, and what it is. */
export interface StoredDocument {
  id: string;
  /** Who uploaded it, as an opaque key (a hash of the caller's identity, never a credential). */
  owner: string;
  /** The provider named at upload, or null. */
  provider: string | null;
  /** The provider's file id, when a provider's files API holds the file and its text; absent when the gateway keeps the text. */
  fileId?: string;
  fileName: string;
  mediaType: string;
  bytes: number;
  tokens: number;
  status: 'ready' | 'unavailable';
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** When the document goes (CHAT_DOCUMENT_TTL_S after its upload), in milliseconds since the epoch; a record written before expiry existed has none and stays until deleted. */
  expiresAt?: number;
}

/** Files and bytes the documents keep at one provider (its own limits: Kimi 1,000 files, 10 GB). */
export interface ProviderUsage {
  files: number;
  bytes: number;
}

/** What {@link DocumentStore.add} did: `full` past the store's bound, `client-full` past the owner's share; nothing added then. */
export type AddOutcome = 'added' | 'full' | 'client-full';

/**
 * What {@link DocumentStore.cancel} found: `stored` (the add had landed and is kept), `removed` (it had landed and is
 * undone), `barred` (it had not landed, and now never will).
 */
export type CancelOutcome = 'stored' | 'removed' | 'barred';

/**
 * Chat documents: each document's record, the text of those the gateway extracted itself (within `maxTextBytes` in
 * all and `clientMaxBytes` per owner: an addition past either is refused, never another document's text dropped), an
 * index by owner, per provider the files and bytes held there, and an index by expiry. A document past its
 * `expiresAt` is gone for every read (get, text, list) at once; {@link DocumentStore.expired} hands it to the sweep
 * that deletes its provider file, then removes it.
 */
export interface DocumentStore {
  /** Adds a document, with its text when the gateway keeps it; idempotent (a document already there is `added`). */
  add(doc: StoredDocument, text?: string): Promise<AddOutcome>;
  /**
   * Settles an add whose answer was lost (a timeout: Redis may still run it): `keep` keeps a document that landed,
   * else it is removed; one that has not landed is barred, so a late add of it adds nothing.
   */
  cancel(doc: StoredDocument, mode: 'keep' | 'remove'): Promise<CancelOutcome>;
  /** The document, or undefined when there is none or it expired. Rejects when the store cannot answer: never a stale copy. */
  get(id: string): Promise<StoredDocument | undefined>;
  /** The text the gateway keeps for `id` (read only after `get` found the document). */
  text(id: string): Promise<string | undefined>;
  /** The owner's documents, newest first, the expired left out. */
  list(owner: string): Promise<StoredDocument[]>;
  /** Bytes of text the store keeps for the owner (counted against `clientMaxBytes`). */
  held(owner: string): Promise<number>;
  /** Files and bytes the documents keep at `provider`: all of them, or `owner`'s. */
  usage(provider: string, owner?: string): Promise<ProviderUsage>;
  /** Whether a document (expired or not, until it is removed) holds the provider's file `fileId`. */
  holds(provider: string, fileId: string): Promise<boolean>;
  /** Up to `limit` documents past their expiry, the longest expired first. */
  expired(limit: number): Promise<StoredDocument[]>;
  setStatus(id: string, status: StoredDocument['status']): Promise<void>;
  /** Removes the document and its text; the record removed, or undefined when there was none. */
  remove(id: string): Promise<StoredDocument | undefined>;
  /**
   * Whether the store lost its documents since this replica last asked (a Redis restarted empty): their provider
   * files are then orphans to look for. An in-process store answers false: it dies with its process.
   */
  lost(): Promise<boolean>;
}

export interface DocumentStoreOptions {
  /** Bytes of kept text at most (CHAT_DOCUMENT_STORE_MAX_BYTES). */
  maxTextBytes: number;
  /** Bytes of kept text one owner may hold (CHAT_DOCUMENT_CLIENT_MAX_BYTES). @default maxTextBytes */
  clientMaxBytes?: number;
  /** The clock expiry is read against. @default Date.now */
  now?: () => number;
}

const newestFirst = (a: StoredDocument, b: StoredDocument) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1);
const isLive = (doc: StoredDocument, now: number) => doc.expiresAt === undefined || doc.expiresAt > now;

/** Every document in this process. */
export class MemoryDocumentStore implements DocumentStore {
  private readonly docs = new Map<string, StoredDocument>();
  private readonly texts = new Map<string, string>();
  private readonly owners = new Map<string, number>();
  private readonly barred = new Set<string>();
  private textBytes = 0;
  private readonly now: () => number;

  constructor(private readonly options: DocumentStoreOptions) {
    this.now = options.now ?? Date.now;
  }

  add(doc: StoredDocument, text?: string): Promise<AddOutcome> {
    if (this.barred.has(doc.id)) return Promise.resolve('added');
    if (this.docs.has(doc.id)) return Promise.resolve('added');
    const size = text === undefined ? 0 : Buffer.byteLength(text);
    if (this.textBytes + size > this.options.maxTextBytes) return Promise.resolve('full');
    if ((this.owners.get(doc.owner) ?? 0) + size > (this.options.clientMaxBytes ?? this.options.maxTextBytes))
      return Promise.resolve('client-full');
    this.docs.set(doc.id, { ...doc });
    if (text !== undefined) {
      this.texts.set(doc.id, text);
      this.textBytes += size;
      this.owners.set(doc.owner, (this.owners.get(doc.owner) ?? 0) + size);
    }
    return Promise.resolve('added');
  }

  async cancel(doc: StoredDocument, mode: 'keep' | 'remove'): Promise<CancelOutcome> {
    if (!this.docs.has(doc.id)) {
      this.barred.add(doc.id);
      return 'barred';
    }
    if (mode === 'keep') return 'stored';
    await this.remove(doc.id);
    return 'removed';
  }

  get(id: string): Promise<StoredDocument | undefined> {
    const doc = this.docs.get(id);
    return Promise.resolve(doc && isLive(doc, this.now()) ? { ...doc } : undefined);
  }

  text(id: string): Promise<string | undefined> {
    return Promise.resolve(this.texts.get(id));
  }

  list(owner: string): Promise<StoredDocument[]> {
    const now = this.now();
    return Promise.resolve(
      [...this.docs.values()]
        .filter((d) => d.owner === owner && isLive(d, now))
        .map((d) => ({ ...d }))
        .sort(newestFirst),
    );
  }

  held(owner: string): Promise<number> {
    return Promise.resolve(this.owners.get(owner) ?? 0);
  }

  usage(provider: string, owner?: string): Promise<ProviderUsage> {
    const usage = { files: 0, bytes: 0 };
    for (const d of this.docs.values()) {
      if (d.fileId === undefined || d.provider !== provider || (owner !== undefined && d.owner !== owner)) continue;
      usage.files += 1;
      usage.bytes += d.bytes;
    }
    return Promise.resolve(usage);
  }

  holds(provider: string, fileId: string): Promise<boolean> {
    return Promise.resolve([...this.docs.values()].some((d) => d.provider === provider && d.fileId === fileId));
  }

  expired(limit: number): Promise<StoredDocument[]> {
    const now = this.now();
    const gone = [...this.docs.values()].filter((d) => !isLive(d, now)).sort((a, b) => a.expiresAt! - b.expiresAt!);
    return Promise.resolve(gone.slice(0, limit).map((d) => ({ ...d })));
  }

  setStatus(id: string, status: StoredDocument['status']): Promise<void> {
    const doc = this.docs.get(id);
    if (doc) doc.status = status;
    return Promise.resolve();
  }

  remove(id: string): Promise<StoredDocument | undefined> {
    const doc = this.docs.get(id);
    this.docs.delete(id);
    const text = this.texts.get(id);
    if (doc && text !== undefined) {
      const size = Buffer.byteLength(text);
      this.textBytes -= size;
      const left = (this.owners.get(doc.owner) ?? 0) - size;
      if (left > 0) this.owners.set(doc.owner, left);
      else this.owners.delete(doc.owner);
      this.texts.delete(id);
    }
    return Promise.resolve(doc);
  }

  lost(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

/**
 * KEYS of every script below: the record, the text, the owner's set, the provider's usage hash, the provider's file
 * index, the kept-text total, the owner's kept-text total, the expiry index, the document's bar (a cancelled add),
 * the owner's usage hash at the provider.
 */
const KEY_COUNT = 10;

/** Undoes everything {@link ADD} added (ARGV[2]: the document's bytes, ARGV[3] its id, ARGV[4] its file id or ''). */
const REMOVE_ALL = `
redis.call('DEL', KEYS[1])
local size = redis.call('STRLEN', KEYS[2])
if size > 0 then
  redis.call('DEL', KEYS[2])
  redis.call('DECRBY', KEYS[6], size)
  if redis.call('DECRBY', KEYS[7], size) <= 0 then redis.call('DEL', KEYS[7]) end
end
redis.call('SREM', KEYS[3], ARGV[3])
redis.call('ZREM', KEYS[8], ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HINCRBY', KEYS[4], 'files', -1)
  redis.call('HINCRBY', KEYS[4], 'bytes', -tonumber(ARGV[2]))
  redis.call('HDEL', KEYS[5], ARGV[4])
  if redis.call('HINCRBY', KEYS[10], 'files', -1) <= 0 then redis.call('DEL', KEYS[10]) else redis.call('HINCRBY', KEYS[10], 'bytes', -tonumber(ARGV[2])) end
end
`;

/**
 * ARGV: the record's JSON, the text ('' for none), whether there is a text, the store's bound, the document's bytes,
 * its id, its file id ('' for none), the owner's bound, its expiry (ms). Adds nothing when barred or already there
 * (1: an add resent after a lost answer changes nothing), refuses past the store's bound (0) or the owner's (-1), else
 * adds it all (1).
 */
const ADD = `
if redis.call('EXISTS', KEYS[9]) == 1 or redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
if ARGV[3] == '1' then
  local size = string.len(ARGV[2])
  if tonumber(redis.call('GET', KEYS[6]) or '0') + size > tonumber(ARGV[4]) then return 0 end
  if tonumber(redis.call('GET', KEYS[7]) or '0') + size > tonumber(ARGV[8]) then return -1 end
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('INCRBY', KEYS[6], size)
  redis.call('INCRBY', KEYS[7], size)
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[6])
redis.call('ZADD', KEYS[8], ARGV[9], ARGV[6])
if ARGV[7] ~= '' then
  redis.call('HINCRBY', KEYS[4], 'files', 1)
  redis.call('HINCRBY', KEYS[4], 'bytes', tonumber(ARGV[5]))
  redis.call('HSET', KEYS[5], ARGV[7], ARGV[6])
  redis.call('HINCRBY', KEYS[10], 'files', 1)
  redis.call('HINCRBY', KEYS[10], 'bytes', tonumber(ARGV[5]))
end
return 1
`;

/** ARGV: the record's JSON as read, the document's bytes, its id, its file id. Removes it all, once: only while the record is still the one read (0 otherwise). */
const REMOVE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
${REMOVE_ALL}
return 1
`;

/**
 * ARGV as {@link REMOVE}, then 'keep' or 'remove', then how long a bar lasts (ms). The record there as written: kept
 * (1) or removed (2). Not there: barred (0), so the add, should Redis run it later, adds nothing.
 */
const CANCEL = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[5] == 'keep' then return 1 end
  ${REMOVE_ALL}
  return 2
end
redis.call('SET', KEYS[9], '1', 'PX', tonumber(ARGV[6]))
return 0
`;

/** KEYS: the record. ARGV: the record's JSON as read, the new JSON. A compare-and-set of the record. */
const REPLACE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

/** How long a cancelled add stays barred: far longer than a command can wait in a hung Redis's queue. */
const BAR_MS = 24 * 60 * 60 * 1000;

/**
 * Documents shared by every replica: `documents:<name>:doc:<id>` (the record's JSON), `…:text:<id>`,
 * `…:owner:<owner>` (set of ids), `…:owner-bytes:<owner>` (the owner's kept text), `…:usage:<provider>` and
 * `…:owner-usage:<owner>:<provider>` (hashes `files`, `bytes`), `…:files:<provider>` (hash file id → document id), `…:text-bytes` (the kept total),
 * `…:expiry` (sorted set of ids by `expiresAt`), `…:bar:<id>` (a cancelled add, PX a day), `…:epoch` (which Redis
 * this is). No key of a document carries a Redis TTL: its counts and indexes must go in the same step as its record,
 * which the sweep's removal does; reads treat a record past `expiresAt` as gone meanwhile.
 *
 * Reads never answer from a replica's copy while Redis fails (they reject): a document deleted on another replica
 * must not be served. Texts, which never change while their document lives, are kept per replica (an LRU of
 * `maxTextBytes` at most) and read only after `get` found the document in Redis.
 */
export class RedisDocumentStore implements DocumentStore {
  private readonly addScript: ScriptCall<number>;
  private readonly removeScript: ScriptCall<number>;
  private readonly cancelScript: ScriptCall<number>;
  private readonly replaceScript: ScriptCall<number>;
  private readonly texts: LRUCache<string, string>;
  private readonly now: () => number;
  /** The `epoch` this replica last saw; undefined before its first look. */
  private epoch: string | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly fallback: FallbackPolicy,
    private readonly options: DocumentStoreOptions,
  ) {
    this.addScript = redis.script<number>('documents.add', ADD, KEY_COUNT);
    this.removeScript = redis.script<number>('documents.remove', REMOVE, KEY_COUNT);
    this.cancelScript = redis.script<number>('documents.cancel', CANCEL, KEY_COUNT);
    this.replaceScript = redis.script<number>('documents.replace', REPLACE, 1);
    this.texts = new LRUCache<string, string>({
      maxSize: options.maxTextBytes,
      sizeCalculation: (text) => Math.max(1, text.length),
    });
    this.now = options.now ?? Date.now;
  }

  async add(doc: StoredDocument, text?: string): Promise<AddOutcome> {
    const clientMax = this.options.clientMaxBytes ?? this.options.maxTextBytes;
    const args = [
      JSON.stringify(doc),
      text ?? '',
      text === undefined ? '0' : '1',
      this.options.maxTextBytes,
      doc.bytes,
      doc.id,
      doc.fileId ?? '',
      clientMax,
      doc.expiresAt ?? '+inf',
    ];
    const added = await this.addScript(this.keysOf(doc), args);
    if (added === -1) return 'client-full';
    if (added === 0) return 'full';
    if (text !== undefined && text.length <= this.options.maxTextBytes) this.texts.set(doc.id, text);
    return 'added';
  }

  async cancel(doc: StoredDocument, mode: 'keep' | 'remove'): Promise<CancelOutcome> {
    const outcome = await this.cancelScript(this.keysOf(doc), [
      JSON.stringify(doc),
      doc.bytes,
      doc.id,
      doc.fileId ?? '',
      mode,
      BAR_MS,
    ]);
    if (outcome !== 1) this.texts.delete(doc.id);
    return outcome === 1 ? 'stored' : outcome === 2 ? 'removed' : 'barred';
  }

  async get(id: string): Promise<StoredDocument | undefined> {
    let json: string | null;
    try {
      json = await this.redis.run('documents.get', (r) => r.get(this.key('doc', id)));
    } catch (error) {
      this.fallback.used('documents');
      throw error;
    }
    const doc = json === null ? undefined : (JSON.parse(json) as StoredDocument);
    if (doc && isLive(doc, this.now())) return doc;
    this.texts.delete(id);
    return undefined;
  }

  async text(id: string): Promise<string | undefined> {
    const mine = this.texts.get(id);
    // A document's kept text never changes while it lives, and the caller has just found it in Redis.
    if (mine !== undefined) return mine;
    try {
      const text = await this.redis.run('documents.text', (r) => r.get(this.key('text', id)));
      if (text === null) return undefined;
      if (text.length <= this.options.maxTextBytes) this.texts.set(id, text);
      return text;
    } catch {
      this.fallback.used('documents');
      return undefined;
    }
  }

  async list(owner: string): Promise<StoredDocument[]> {
    const ids = await this.redis.run('documents.owner', (r) => r.smembers(this.key('owner', owner)));
    if (!ids.length) return [];
    const jsons = await this.redis.run('documents.list', (r) => r.mget(ids.map((id) => this.key('doc', id))));
    const now = this.now();
    return jsons
      .flatMap((json) => (json ? [JSON.parse(json) as StoredDocument] : []))
      .filter((d) => isLive(d, now))
      .sort(newestFirst);
  }

  async held(owner: string): Promise<number> {
    return Number((await this.redis.run('documents.held', (r) => r.get(this.key('owner-bytes', owner)))) ?? 0);
  }

  async usage(provider: string, owner?: string): Promise<ProviderUsage> {
    const key = owner === undefined ? this.key('usage', provider) : this.key('owner-usage', `${owner}:${provider}`);
    const hash = await this.redis.run('documents.usage', (r) => r.hgetall(key));
    return { files: Number(hash.files ?? 0), bytes: Number(hash.bytes ?? 0) };
  }

  async holds(provider: string, fileId: string): Promise<boolean> {
    return (await this.redis.run('documents.holds', (r) => r.hexists(this.key('files', provider), fileId))) === 1;
  }

  async expired(limit: number): Promise<StoredDocument[]> {
    const ids = await this.redis.run('documents.expired', (r) =>
      r.zrangebyscore(this.key('expiry'), '-inf', this.now(), 'LIMIT', 0, limit),
    );
    if (!ids.length) return [];
    const jsons = await this.redis.run('documents.list', (r) => r.mget(ids.map((id) => this.key('doc', id))));
    const stale = ids.filter((_, i) => jsons[i] === null);
    // An index entry whose record is gone (removed between the two reads) is dropped.
    if (stale.length) await this.redis.run('documents.expired', (r) => r.zrem(this.key('expiry'), ...stale));
    return jsons.flatMap((json) => (json ? [JSON.parse(json) as StoredDocument] : []));
  }

  async setStatus(id: string, status: StoredDocument['status']): Promise<void> {
    const json = await this.redis.run('documents.get', (r) => r.get(this.key('doc', id)));
    if (json === null) return;
    const doc = { ...(JSON.parse(json) as StoredDocument), status };
    await this.replaceScript([this.key('doc', id)], [json, JSON.stringify(doc)]);
  }

  async remove(id: string): Promise<StoredDocument | undefined> {
    const json = await this.redis.run('documents.get', (r) => r.get(this.key('doc', id)));
    this.texts.delete(id);
    if (json === null) return undefined;
    const doc = JSON.parse(json) as StoredDocument;
    const removed = await this.removeScript(this.keysOf(doc), [json, doc.bytes, doc.id, doc.fileId ?? '']);
    return removed ? doc : undefined;
  }

  async lost(): Promise<boolean> {
    const key = this.key('epoch');
    let epoch = await this.redis.run('documents.epoch', (r) => r.get(key));
    if (epoch === null) {
      const mine = `${this.now()}-${Math.random().toString(36).slice(2)}`;
      const set = await this.redis.run('documents.epoch', (r) => r.set(key, mine, 'NX'));
      epoch = set === 'OK' ? mine : await this.redis.run('documents.epoch', (r) => r.get(key));
    }
    const seen = this.epoch;
    this.epoch = epoch ?? undefined;
    // The first look has nothing to compare with: a Redis new at start-up is the periodic reconcile's to find.
    return seen !== undefined && seen !== epoch;
  }

  private keysOf(doc: StoredDocument): string[] {
    const provider = doc.provider ?? '';
    return [
      this.key('doc', doc.id),
      this.key('text', doc.id),
      this.key('owner', doc.owner),
      this.key('usage', provider),
      this.key('files', provider),
      this.key('text-bytes'),
      this.key('owner-bytes', doc.owner),
      this.key('expiry'),
      this.key('bar', doc.id),
      this.key('owner-usage', `${doc.owner}:${provider}`),
    ];
  }

  private key(
    kind:
      | 'doc'
      | 'text'
      | 'owner'
      | 'owner-bytes'
      | 'owner-usage'
      | 'usage'
      | 'files'
      | 'text-bytes'
      | 'expiry'
      | 'bar'
      | 'epoch',
    id?: string,
  ): string {
    return id === undefined ? `documents:${this.name}:${kind}` : `documents:${this.name}:${kind}:${id}`;
  }
}

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
}

/** Files and bytes the documents keep at one provider (its own limits: Kimi 1,000 files, 10 GB). */
export interface ProviderUsage {
  files: number;
  bytes: number;
}

/**
 * Chat documents: each document's record, the text of those the gateway extracted itself (kept until the document is
 * deleted, within `maxTextBytes`: an addition past it is refused, never another document's text dropped), an index
 * by owner, and per provider the files and bytes held there.
 */
export interface DocumentStore {
  /** Adds a document, with its text when the gateway keeps it; `full` (and nothing added) when the text would pass `maxTextBytes`. */
  add(doc: StoredDocument, text?: string): Promise<'added' | 'full'>;
  get(id: string): Promise<StoredDocument | undefined>;
  /** The text the gateway keeps for `id`. */
  text(id: string): Promise<string | undefined>;
  /** The owner's documents, newest first. */
  list(owner: string): Promise<StoredDocument[]>;
  usage(provider: string): Promise<ProviderUsage>;
  /** Whether a document holds the provider's file `fileId`. */
  holds(provider: string, fileId: string): Promise<boolean>;
  setStatus(id: string, status: StoredDocument['status']): Promise<void>;
  /** Removes the document and its text; the record removed, or undefined when there was none. */
  remove(id: string): Promise<StoredDocument | undefined>;
}

export interface DocumentStoreOptions {
  /** Bytes of kept text at most (CHAT_DOCUMENT_STORE_MAX_BYTES). */
  maxTextBytes: number;
}

const newestFirst = (a: StoredDocument, b: StoredDocument) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1);

/** Every document in this process. */
export class MemoryDocumentStore implements DocumentStore {
  private readonly docs = new Map<string, StoredDocument>();
  private readonly texts = new Map<string, string>();
  private textBytes = 0;

  constructor(private readonly options: DocumentStoreOptions) {}

  add(doc: StoredDocument, text?: string): Promise<'added' | 'full'> {
    const size = text === undefined ? 0 : Buffer.byteLength(text);
    if (this.textBytes + size > this.options.maxTextBytes) return Promise.resolve('full');
    this.docs.set(doc.id, { ...doc });
    if (text !== undefined) {
      this.texts.set(doc.id, text);
      this.textBytes += size;
    }
    return Promise.resolve('added');
  }

  get(id: string): Promise<StoredDocument | undefined> {
    const doc = this.docs.get(id);
    return Promise.resolve(doc && { ...doc });
  }

  text(id: string): Promise<string | undefined> {
    return Promise.resolve(this.texts.get(id));
  }

  list(owner: string): Promise<StoredDocument[]> {
    return Promise.resolve([...this.docs.values()].filter((d) => d.owner === owner).map((d) => ({ ...d })).sort(newestFirst));
  }

  usage(provider: string): Promise<ProviderUsage> {
    const usage = { files: 0, bytes: 0 };
    for (const d of this.docs.values()) {
      if (d.fileId === undefined || d.provider !== provider) continue;
      usage.files += 1;
      usage.bytes += d.bytes;
    }
    return Promise.resolve(usage);
  }

  holds(provider: string, fileId: string): Promise<boolean> {
    return Promise.resolve([...this.docs.values()].some((d) => d.provider === provider && d.fileId === fileId));
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
    if (text !== undefined) {
      this.textBytes -= Buffer.byteLength(text);
      this.texts.delete(id);
    }
    return Promise.resolve(doc);
  }
}

/**
 * KEYS: the record, the text, the owner's set, the provider's usage hash, the provider's file index, the kept-text
 * total. ARGV: the record's JSON, the text ('' for none), whether there is a text, the byte bound, the document's
 * bytes, its id, its file id ('' for none). Refuses (0) when the text would pass the bound; else adds it all (1).
 */
const ADD = `
local size = 0
if ARGV[3] == '1' then
  size = string.len(ARGV[2])
  local held = tonumber(redis.call('GET', KEYS[6]) or '0')
  if held + size > tonumber(ARGV[4]) then return 0 end
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('INCRBY', KEYS[6], size)
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[6])
if ARGV[7] ~= '' then
  redis.call('HINCRBY', KEYS[4], 'files', 1)
  redis.call('HINCRBY', KEYS[4], 'bytes', tonumber(ARGV[5]))
  redis.call('HSET', KEYS[5], ARGV[7], ARGV[6])
end
return 1
`;

/**
 * KEYS as {@link ADD}. ARGV: the record's JSON as read, the document's bytes, its id, its file id ('' for none).
 * Removes everything {@link ADD} added, once: only while the record is still the one read (0 otherwise).
 */
const REMOVE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
local size = redis.call('STRLEN', KEYS[2])
if size > 0 then
  redis.call('DEL', KEYS[2])
  redis.call('DECRBY', KEYS[6], size)
end
redis.call('SREM', KEYS[3], ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HINCRBY', KEYS[4], 'files', -1)
  redis.call('HINCRBY', KEYS[4], 'bytes', -tonumber(ARGV[2]))
  redis.call('HDEL', KEYS[5], ARGV[4])
end
return 1
`;

/** KEYS: the record. ARGV: the record's JSON as read, the new JSON. A compare-and-set of the record. */
const REPLACE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

/**
 * Documents shared by every replica: `documents:<name>:doc:<id>` (the record's JSON), `…:text:<id>`,
 * `…:owner:<owner>` (set of ids), `…:usage:<provider>` (hash `files`, `bytes`), `…:files:<provider>` (hash file id →
 * document id), `…:text-bytes` (the kept total). Records and texts never expire: a document lives until it is deleted.
 * Each replica keeps a copy of the records and texts it wrote or read (an LRU of `maxTextBytes` at most), answered
 * only while Redis fails, so completions over documents it has seen go on; a write while Redis fails throws.
 */
export class RedisDocumentStore implements DocumentStore {
  private readonly addScript: ScriptCall<number>;
  private readonly removeScript: ScriptCall<number>;
  private readonly replaceScript: ScriptCall<number>;
  private readonly records = new LRUCache<string, StoredDocument>({ max: 10_000 });
  private readonly texts: LRUCache<string, string>;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly fallback: FallbackPolicy,
    private readonly options: DocumentStoreOptions,
  ) {
    this.addScript = redis.script<number>('documents.add', ADD, 6);
    this.removeScript = redis.script<number>('documents.remove', REMOVE, 6);
    this.replaceScript = redis.script<number>('documents.replace', REPLACE, 1);
    this.texts = new LRUCache<string, string>({ maxSize: options.maxTextBytes, sizeCalculation: (text) => Math.max(1, text.length) });
  }

  async add(doc: StoredDocument, text?: string): Promise<'added' | 'full'> {
    const added = await this.addScript(this.keysOf(doc), [JSON.stringify(doc), text ?? '', text === undefined ? '0' : '1', this.options.maxTextBytes, doc.bytes, doc.id, doc.fileId ?? '']);
    if (!added) return 'full';
    this.records.set(doc.id, { ...doc });
    if (text !== undefined && text.length <= this.options.maxTextBytes) this.texts.set(doc.id, text);
    return 'added';
  }

  async get(id: string): Promise<StoredDocument | undefined> {
    try {
      const json = await this.redis.run('documents.get', (r) => r.get(this.key('doc', id)));
      if (json === null) {
        this.records.delete(id);
        return undefined;
      }
      const doc = JSON.parse(json) as StoredDocument;
      this.records.set(id, doc);
      return { ...doc };
    } catch {
      this.fallback.used('documents');
      const doc = this.records.get(id);
      return doc && { ...doc };
    }
  }

  async text(id: string): Promise<string | undefined> {
    const mine = this.texts.get(id);
    // A document's kept text never changes while it lives: this replica's copy is as good as Redis's.
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
    return jsons.flatMap((json) => (json ? [JSON.parse(json) as StoredDocument] : [])).sort(newestFirst);
  }

  async usage(provider: string): Promise<ProviderUsage> {
    const hash = await this.redis.run('documents.usage', (r) => r.hgetall(this.key('usage', provider)));
    return { files: Number(hash.files ?? 0), bytes: Number(hash.bytes ?? 0) };
  }

  async holds(provider: string, fileId: string): Promise<boolean> {
    return (await this.redis.run('documents.holds', (r) => r.hexists(this.key('files', provider), fileId))) === 1;
  }

  async setStatus(id: string, status: StoredDocument['status']): Promise<void> {
    const json = await this.redis.run('documents.get', (r) => r.get(this.key('doc', id)));
    if (json === null) return;
    const doc = { ...(JSON.parse(json) as StoredDocument), status };
    await this.replaceScript([this.key('doc', id)], [json, JSON.stringify(doc)]);
    this.records.set(id, doc);
  }

  async remove(id: string): Promise<StoredDocument | undefined> {
    const json = await this.redis.run('documents.get', (r) => r.get(this.key('doc', id)));
    this.records.delete(id);
    this.texts.delete(id);
    if (json === null) return undefined;
    const doc = JSON.parse(json) as StoredDocument;
    const removed = await this.removeScript(this.keysOf(doc), [json, doc.bytes, doc.id, doc.fileId ?? '']);
    return removed ? doc : undefined;
  }

  private keysOf(doc: StoredDocument): string[] {
    const provider = doc.provider ?? '';
    return [this.key('doc', doc.id), this.key('text', doc.id), this.key('owner', doc.owner), this.key('usage', provider), this.key('files', provider), this.key('text-bytes')];
  }

  private key(kind: 'doc' | 'text' | 'owner' | 'usage' | 'files' | 'text-bytes', id?: string): string {
    return id === undefined ? `documents:${this.name}:${kind}` : `documents:${this.name}:${kind}:${id}`;
  }
}

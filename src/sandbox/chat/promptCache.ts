import { createHash } from 'node:crypto';
import { countPromptTokens, type ChatMessage } from './chatRequest.js';

/** Most prefixes one emulator remembers; the oldest go first. */
const MAX_PREFIXES = 10_000;

/**
 * Automatic prefix caching, as all four providers now do it: the prompt's longest leading run of messages that an
 * earlier request of the same model began with is served from cache, counted in whole blocks of `block` tokens
 * (DeepSeek caches in 64-token units; a prefix shorter than one block is not cached). Remembered per emulator,
 * deterministically: the same requests in the same order give the same counts.
 */
export class PromptCache {
  private readonly prefixes = new Map<string, true>();

  constructor(private readonly block: number) {}

  /** Cached tokens of `messages` for `model`, then remembers all their prefixes. */
  take(model: string, messages: readonly ChatMessage[]): number {
    const hash = createHash('sha256').update(model);
    let cached = 0;
    let tokens = 0;
    const seen: string[] = [];
    for (const m of messages) {
      hash.update(JSON.stringify([m.role, m.text, m.images, m.toolCallId ?? null]));
      tokens += countPromptTokens([m]);
      const key = hash.copy().digest('base64');
      seen.push(key);
      if (this.prefixes.has(key)) cached = tokens;
    }
    for (const key of seen) {
      this.prefixes.delete(key);
      this.prefixes.set(key, true);
    }
    while (this.prefixes.size > MAX_PREFIXES) this.prefixes.delete(this.prefixes.keys().next().value!);
    return Math.floor(cached / this.block) * this.block;
  }

  clear(): void {
    this.prefixes.clear();
  }
}

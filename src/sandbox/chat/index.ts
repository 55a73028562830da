/**
 * The four chat-completion emulators: glm (P), ark (Q), deepseek (R), moonshot (S), as docs/upstreams.md §3 describes them.
 *
 * Layout: one OpenAI-style core — `chatRequest.ts` (parse and shared checks), `generator.ts` (deterministic tokens),
 * `compose.ts` (their words, from the conversation), `response.ts` (bodies and chunk sequences), `wire.ts` (paced
 * SSE and JSON writes), `rateWindow.ts`, `emulator.ts` (the request flow) — and one file per provider with only what
 * differs (`provider.ts` lists those differences).
 *
 * Behaviour worth knowing when testing against it:
 * - Credential: `Authorization: Bearer sandbox`.
 * - The same model, messages, tools and sampling parameters give the same tokens, streamed or not; `max_tokens`
 *   and `stop` cut that same answer (finish `length` / `stop`). The answer names the last question's subject, quotes
 *   the tool results that followed it, and ends saying an emulated model wrote it (compose.ts): some 30–90 content
 *   tokens, one per SSE event, `chatTokenDelayMs` apart; a non-streaming answer waits as long before it is sent.
 * - Tools offered, `tool_choice` not `none` and the last message not a tool result → a call of the first (or the
 *   named) tool with arguments sampled from its JSON Schema (free text: the question's subject; defaults kept),
 *   finish `tool_calls`; with two or more tools offered (and `parallel_tool_calls` not false) the first two in one
 *   turn. Arguments stream in 5–10 character fragments; GLM sends the calls whole unless the request has
 *   `tool_stream: true`, as GLM does.
 * - Scripted tool calls: `[[tool:Name {"id":"Exchange"}]]` markers in a user message make the model call those tools
 *   with exactly those arguments, one turn per marker in order (markers written back to back, `]][[`, are one turn's
 *   parallel calls), then answer; `[[tool-loop]]` makes it call the last group for ever (generator.ts).
 * - Reasoning: on by default where the real model has it (models.ts `reasoning`), turned off or on by
 *   `thinking: {type}`, longer or shorter with `reasoning_effort`; `reasoning_content` comes before `content` and
 *   counts towards `completion_tokens` and `max_tokens` (Ark: `max_completion_tokens`; its `max_tokens` caps only the
 *   answer). DeepSeek and Kimi while thinking refuse a forced `tool_choice` and an assistant tool-call turn sent back
 *   without its `reasoning_content`, with their own 400s; Kimi K2.6 refuses any temperature but its own. Only Ark
 *   takes `thinking: {type: "auto"}`. Kimi's always-on models (K2.7-Code, K3, K3.1 Pro) refuse a disabled switch
 *   and `thinking` beside `reasoning_effort`; GLM-5.3 ignores the switch. Efforts: each provider's documented set
 *   (Ark no `max`, and only `minimal` with thinking off; Kimi K3 low/high/max; GLM's seven, `none`/`minimal` without
 *   thinking). GLM takes one `stop` and a `user_id` of 6–128; DeepSeek a `user_id` of ≤ 512 `[A-Za-z0-9_-]`, and
 *   ignores `max_completion_tokens` (docs/upstreams.md §3.6, the audit of 2026-11-28).
 * - JSON output: `response_format` json_object (DeepSeek: a system or user message must say "json"), Ark also json_schema; the
 *   answer is JSON, of the schema given (or of a "JSON Schema: {…}" system message), `[[json:bad]]` makes it miss.
 * - Cached tokens: a prompt whose leading messages an earlier request of the same model began with reports them as
 *   cached (promptCache.ts), in blocks of 64 tokens (Kimi 256), in each provider's usage fields.
 * - Trigger markers in any user message (the answer then breaks off half-way):
 *     `[[sensitive]]`     → GLM `sensitive`; Ark, DeepSeek, Moonshot `content_filter`
 *     `[[network_error]]` → GLM `network_error`; DeepSeek `insufficient_system_resource`
 *     `[[context]]`       → GLM `model_context_window_exceeded`
 *     `[[error]]`         → GLM streams an in-band `data: {"error":{"code":"1234",…}}` event and ends without
 *                           `[DONE]`; non-streaming, GLM answers HTTP 500 with code 1234
 *   A marker a provider has no finish reason for is plain text there.
 * - DeepSeek non-streaming bodies always start with one empty line (then one per 500 ms of generation), and its
 *   streams start with `: keep-alive` and repeat it after every 10 data events: real clients must tolerate both.
 * - Prompt tokens: each word, number, punctuation mark or CJK character of all messages, plus 3 per message and 256
 *   per image; over the model's context window → the provider's "too long" 400.
 * - GLM and Ark also serve `POST …/embeddings` and `POST …/images/generations` in their formats (see media.ts):
 *   GLM `embedding-3` (64 texts per call), `embedding-2` (16), `cogview-*`; Ark the endpoints
 *   `ep-20250101-doubao-embedding` (256 texts per call) and `ep-20250101-doubao-seedream`.
 * - Rate limit: a sliding 60 s window per provider over the sandbox clock, `chatRpm[provider]` requests (absent or 0:
 *   unlimited). Authenticated chat calls count, valid or not. DeepSeek limits concurrency: past `chatConcurrency`
 *   (default 500) requests open at once, its 429.
 * - `GET …/models` lists the models served today (models.ts); Kimi's entries carry `context_length`,
 *   `supports_image_in` and `supports_reasoning`.
 * - Kimi's files API and token count (files.ts): `POST /files` (`purpose=file-extract`, read as it streams in, with
 *   Kimi's limits and 400s), `GET /files`, `GET|DELETE /files/{id}`, `GET /files/{id}/content` (text and PDFs
 *   extracted), `POST /tokenizers/estimate-token-count`.
 */
import type { Emulator } from '../types.js';
import { ark } from './ark.js';
import { deepseek } from './deepseek.js';
import { createChatEmulator } from './emulator.js';
import { glm } from './glm.js';
import { moonshot } from './moonshot.js';

export { CHAT_PROVIDER_NAMES, SANDBOX_MODELS, type ChatProviderName, type SandboxModel } from './models.js';
export { TRIGGERS } from './generator.js';
export { runningChatWriters } from './wire.js';

export const createChatEmulators = (): Emulator[] => [glm, ark, deepseek, moonshot].map(createChatEmulator);

import type { ChatRequest } from './chatRequest.js';

/**
 * What the emulated model says: sentences composed from the conversation instead of random words, so that a person
 * trying the gateway reads something that answers. The answer names the question's subject ("a GraphQL gateway",
 * "Exchange"), quotes this turn's tool results (the service health a graph tool returned, say) and ends saying that
 * an emulated model wrote it. Over attached documents it names them and quotes the passage that best matches the
 * question. Deterministic: the same conversation and random source give the same text. Cheap: one pass over the last
 * question (at most {@link MAX_QUESTION_CHARS}), over this turn's tool results and over each document's text.
 */

/** The question's subject. */
export interface Subject {
  /** As the answer writes it, with its article: "a GraphQL gateway", "Exchange". */
  phrase: string;
  /** Without the article, as a tool argument takes it: "GraphQL gateway", "Exchange". */
  bare: string;
  plural: boolean;
}

/** A tool result of this turn, with the call it answers. */
export interface ToolResult {
  /** The tool called ("the tool" when the conversation does not show the call). */
  name: string;
  /** The call's arguments JSON, as the model sent them. */
  arguments: string;
  content: string;
}

/** A document the prompt carries, with the name it was given. */
export interface AttachedDocument {
  name: string;
  text: string;
}

/** What the model answers from: the last question's subject, the tool results that followed it, the documents. */
export interface Conversation {
  subject?: Subject;
  /** The question greets or asks for a greeting. */
  greeting: boolean;
  /** Tool results after the last user message, in order. */
  results: ToolResult[];
  /** The last question (its first {@link MAX_QUESTION_CHARS}), for the passage of a document that answers it. */
  question: string;
  /** System messages that are documents, in order. */
  documents: AttachedDocument[];
}

/** Characters of the last question read for its subject; a longer question is read from its start. */
const MAX_QUESTION_CHARS = 2000;
/** Tool results quoted in one answer. */
const MAX_RESULTS_QUOTED = 3;
/** Records read from one tool result. */
const MAX_RECORDS = 500;
/** Fields quoted of one record. */
const MAX_FACTS = 3;
/** The sandbox's own markers (`[[tool:…]]`, `[[long:…]]`, …) are instructions to the emulator, not words of the question. */
const MARKER = /\[\[[^\]]*\]\]/g;
const GREETING = /\b(hello|hi|hey|greet)\b/gi;

export function readConversation(req: ChatRequest): Conversation {
  const lastUser = req.messages.map((m) => m.role).lastIndexOf('user');
  const question = lastUser === -1 ? '' : req.messages[lastUser].text.slice(0, MAX_QUESTION_CHARS);
  const calls = new Map<string, { name: string; arguments: string }>();
  const results: ToolResult[] = [];
  for (const m of req.messages.slice(lastUser + 1)) {
    for (const call of m.calls ?? []) calls.set(call.id, call);
    if (m.role !== 'tool') continue;
    const call = calls.get(m.toolCallId ?? '');
    results.push({ name: call?.name || 'the tool', arguments: call?.arguments ?? '', content: m.text });
  }
  const greeting = GREETING.test(question);
  const subject = subjectOf(greeting ? question.replace(GREETING, ' ') : question);
  const documents = req.messages.flatMap((m) => (m.role === 'system' ? (documentOf(m.text) ?? []) : []));
  return { subject, greeting, results, question, documents };
}

// ---- Documents ---------------------------------------------------------------------------------------------------

/** How the gateway places a document (src/domains/chat/documents/attach.ts): its name on the first line, a blank line. */
const DOCUMENT_HEADER = /^Document: ([^\n]{1,255})\n\n/;

/**
 * A system message that is a document: the gateway's placement, or Kimi's file guide's (the files API's JSON answer
 * `{content, filename, …}` as the message); else undefined.
 */
function documentOf(text: string): AttachedDocument | undefined {
  const header = DOCUMENT_HEADER.exec(text);
  if (header) return { name: header[1].trim(), text: text.slice(header[0].length) };
  if (!text.startsWith('{') || !text.includes('"filename"')) return undefined;
  try {
    const file = JSON.parse(text) as { content?: unknown; filename?: unknown };
    if (typeof file.content === 'string' && typeof file.filename === 'string')
      return { name: file.filename, text: file.content };
  } catch {
    // Not JSON after all: an ordinary system message.
  }
  return undefined;
}

/** Characters of a passage quoted; a longer one is cut with an ellipsis. */
const MAX_PASSAGE_CHARS = 240;
/** A word, or where a passage ends: a line break, or a sentence's end before a space. */
const PASSAGE_TOKEN = /[\p{L}\p{N}]+|\n|[.!?](?=\s)/gu;

/** A word as passages are matched: lower case, a plural's `s` dropped ("regions" meets "region"). */
function wordKey(word: string): string {
  const w = word.toLowerCase();
  return w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

/** The question's words that may find a passage: not question words, fillers or the sandbox's markers. */
function questionWords(question: string): Set<string> {
  const words = new Set<string>();
  for (const [w] of question.replace(MARKER, ' ').matchAll(/[\p{L}\p{N}]+/gu))
    if (!STOP.has(w.toLowerCase())) words.add(wordKey(w));
  return words;
}

interface Passage {
  document: AttachedDocument;
  start: number;
  end: number;
  /** How many of the question's words it holds (each once). */
  shared: number;
}

/**
 * The `count` passages (lines, or sentences of a long line) that hold the most of the question's words, best first,
 * the first of equals before the later; one pass over each document's text.
 */
function bestPassages(documents: readonly AttachedDocument[], wanted: ReadonlySet<string>, count: number): Passage[] {
  const best: Passage[] = [];
  for (const document of documents) {
    const { text } = document;
    let start = 0;
    let shared = 0;
    let words = false;
    const seen = new Set<string>();
    const close = (end: number) => {
      if (words && (best.length < count || shared > best[best.length - 1].shared)) {
        let at = best.length;
        while (at > 0 && shared > best[at - 1].shared) at--;
        best.splice(at, 0, { document, start, end, shared });
        best.length = Math.min(best.length, count);
      }
      start = end;
      shared = 0;
      words = false;
      seen.clear();
    };
    for (const m of text.matchAll(PASSAGE_TOKEN)) {
      const token = m[0];
      if (token === '\n') close(m.index + 1);
      else if (token.length === 1 && '.!?'.includes(token)) close(m.index + 1);
      else {
        words = true;
        const key = wordKey(token);
        if (wanted.has(key) && !seen.has(key)) {
          seen.add(key);
          shared++;
        }
      }
    }
    close(text.length);
  }
  return best;
}

/** A passage as quoted: on one line, at most {@link MAX_PASSAGE_CHARS}. */
function passageText(p: Passage): string {
  const text = p.document.text.slice(p.start, p.end).replace(/\s+/g, ' ').trim();
  return text.length > MAX_PASSAGE_CHARS ? `${text.slice(0, MAX_PASSAGE_CHARS - 1)}…` : text;
}

/** Which documents came with the question, and the passage of theirs that answers it best (a long answer: three). */
function documentSentences(conversation: Conversation, long: boolean): string[] {
  const { documents } = conversation;
  const names = joined([...new Set(documents.map((d) => d.name))]);
  const [best, ...more] = bestPassages(documents, questionWords(conversation.question), long ? 3 : 1);
  if (!best) return [`You attached ${names}, but ${documents.length > 1 ? 'they hold' : 'it holds'} no text.`];
  if (best.shared === 0)
    return [
      `You attached ${names}.`,
      `Nothing in ${documents.length > 1 ? 'them' : 'it'} shares a word with your question; ${best.document.name} begins: “${passageText(best)}”`,
    ];
  const sentences = [
    `You attached ${names}.`,
    `The passage of ${best.document.name} closest to your question: “${passageText(best)}”`,
  ];
  const close = more.filter((p) => p.shared > 0);
  if (close.length)
    sentences.push(`Close to it: ${joined(close.map((p) => `“${passageText(p)}” (${p.document.name})`))}.`);
  return sentences;
}

// ---- The subject of a question -------------------------------------------------------------------------------

const WORD = /[\p{L}\p{N}]+(?:['’\-.][\p{L}\p{N}]+)*|[.?!;:,]/gu;
const SENTENCE_END = /^[.?!;:]$/;
const DETERMINERS: Readonly<Record<string, string>> = {
  a: 'a',
  an: 'an',
  the: 'the',
  this: 'this',
  that: 'that',
  these: 'these',
  those: 'those',
  my: 'your',
  our: 'your',
  your: 'my',
};
/** Inside a name ("Microsoft Defender for Endpoint"), between capitalised words. */
const CONNECTORS = new Set(['of', 'for', 'de', 'and', 'the']);
/** Words that are never the subject: question words, auxiliaries, pronouns, prepositions, requests, fillers. */
const STOP = new Set(
  (
    'what who whom which whose how why when where whether is are was were am be been being do does did done doing can could ' +
    'should would will shall may might must has have had having please tell me us about explain describe say name give list ' +
    'show write plan summarize summarise compare find check help make let i you we he she it its they them their there here ' +
    'in on of for to with and or but not no yes now right today currently still again at as by from into onto over under up ' +
    'down out off if so than then also just very really quite much many more most some any all each every one two three ' +
    'four five few little use uses used using work works mean means happen happening get gets got sentence sentences words ' +
    'word briefly brief short long detail details please thanks thank something anything everything else entirely like ' +
    'kind sort way thing things degraded down okay ok a an the this that these those my our your'
  ).split(' '),
);

/** Requests whose object is the subject ("describe item 7"). */
const INSTRUCTIONS = new Set([
  'describe',
  'explain',
  'summarize',
  'summarise',
  'list',
  'write',
  'compare',
  'define',
  'translate',
  'check',
]);
/** Adjectives that end a noun phrase's words when they come last ("why are my builds slow"). */
const PREDICATE_ADJECTIVES = new Set(
  'slow fast good bad better worse wrong broken ready available possible different same down up late early'.split(' '),
);

const isWord = (w: string) => !SENTENCE_END.test(w) && w !== ',';
const isCapitalised = (w: string) => /^\p{Lu}/u.test(w) || /\p{Lu}/u.test(w.slice(1));

function subject(words: readonly string[], determiner = ''): Subject {
  const bare = words.join(' ');
  const last = words[words.length - 1].toLowerCase();
  const plural = /[^s]s$/.test(last) && !/(ss|us|is)$/.test(last) && last.length > 3;
  return { phrase: determiner ? `${determiner} ${bare}` : bare, bare, plural };
}

/**
 * The subject, by the first rule that finds one: a quoted phrase; a noun phrase after an article that holds a name
 * ("a GraphQL gateway"); a name not at the start of a sentence ("Is Exchange degraded?"); what a request asks about
 * ("describe item 7"); any noun phrase after an article ("a message queue"); a name that starts a sentence; else the
 * first words that are not question words.
 */
export function subjectOf(text: string): Subject | undefined {
  const question = text.replace(MARKER, ' ');
  const quoted = /["“]([^"”\n]{2,60})["”]/.exec(question);
  if (quoted) return subject([quoted[1].trim()]);
  const words = question.match(WORD) ?? [];
  const names: Array<{ words: string[]; atStart: boolean }> = [];
  const phrases: Array<{ determiner: string; words: string[] }> = [];
  const objects: string[][] = [];
  let atStart = true;
  let run: { words: string[]; atStart: boolean } | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const lower = w.toLowerCase();
    const named = isWord(w) && isCapitalised(w) && lower !== 'i' && !(atStart && STOP.has(lower));
    const joins =
      run !== undefined &&
      CONNECTORS.has(lower) &&
      i + 1 < words.length &&
      isWord(words[i + 1]) &&
      isCapitalised(words[i + 1]);
    if (named || joins) {
      if (!run) names.push((run = { words: [], atStart }));
      run.words.push(w);
    } else run = undefined;
    if (DETERMINERS[lower] !== undefined || INSTRUCTIONS.has(lower)) {
      const after: string[] = [];
      for (
        let j = i + 1;
        j < words.length && after.length < 4 && isWord(words[j]) && !STOP.has(words[j].toLowerCase());
        j++
      )
        after.push(words[j]);
      while (after.length > 1 && PREDICATE_ADJECTIVES.has(after[after.length - 1].toLowerCase())) after.pop();
      if (after.length && DETERMINERS[lower] !== undefined)
        phrases.push({ determiner: DETERMINERS[lower], words: after });
      else if (after.length) objects.push(after);
    }
    atStart = SENTENCE_END.test(w);
  }
  const namedPhrase = phrases.find((p) => p.words.some(isCapitalised));
  if (namedPhrase) return subject(namedPhrase.words, namedPhrase.determiner);
  const name = names.find((n) => !n.atStart);
  if (name) return subject(name.words);
  if (objects[0]) return subject(objects[0]);
  if (phrases[0]) return subject(phrases[0].words, phrases[0].determiner);
  if (names[0]) return subject(names[0].words);
  const content: string[] = [];
  for (const w of words) {
    if (isWord(w) && !STOP.has(w.toLowerCase())) content.push(w);
    else if (content.length) break;
    if (content.length === 3) break;
  }
  return content.length ? subject(content) : undefined;
}

// ---- Tool results as sentences --------------------------------------------------------------------------------

type Scalar = string | number | boolean;

/** An object of a tool result with fields of its own: a service, an issue, a title. */
interface ResultRecord {
  fields: Array<[string, Scalar]>;
  /** What the list it came from holds ("issues", "health overviews"), or its own key. */
  label: string;
  /** Size of the list it came from. */
  listSize?: number;
  children: ResultRecord[];
}

/** Fields that say nothing to a reader: paging, caching, types. */
const NOISE = new Set([
  'hasNextPage',
  'hasPreviousPage',
  'endCursor',
  'startCursor',
  'cursor',
  'etag',
  '__typename',
  '@odata.etag',
  '@odata.context',
  '@odata.nextLink',
]);
/** Keys that only wrap a list: the list is labelled by the key above them. */
const WRAPPERS = new Set(['nodes', 'edges', 'node', 'items', 'value', 'results', 'data']);
/** The fields that name a record, most telling first. */
const NAME_FIELDS = ['title', 'service', 'displayName', 'name', 'id', 'imdbId'];

function records(
  value: unknown,
  label: string,
  parent: ResultRecord | undefined,
  all: ResultRecord[],
  listSize?: number,
): void {
  if (all.length >= MAX_RECORDS || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) records(item, label, parent, all, value.length);
    return;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const fields = entries.filter(
    (e): e is [string, Scalar] => !NOISE.has(e[0]) && ['string', 'number', 'boolean'].includes(typeof e[1]),
  );
  let self = parent;
  if (fields.length) {
    self = { fields, label, listSize, children: [] };
    all.push(self);
    parent?.children.push(self);
  }
  for (const [key, child] of entries) {
    if (child !== null && typeof child === 'object' && !NOISE.has(key))
      records(child, WRAPPERS.has(key) ? label : words(key), self, all, fields.length ? undefined : listSize);
  }
}

/** `startDateTime` → "start date time"; `SERVICE_DEGRADATION` and `serviceDegradation` → "service degradation". */
function words(name: string): string {
  if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(name)) return name.toLowerCase().replaceAll('_', ' ');
  if (/^[a-z]+(?:[A-Z][a-z0-9]+)+$/.test(name) || /^[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+$/.test(name))
    return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return name;
}

function valueText(key: string, value: Scalar): string {
  if (typeof value !== 'string') return String(value);
  if (/^https?:\/\//.test(value)) return 'a link';
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value)) return `${value.slice(0, 10)} ${value.slice(11, 16)} UTC`;
  const enumLike =
    /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(value) || /^[A-Z]{4,}$/.test(value) || /^[a-z]+(?:[A-Z][a-z]+)+$/.test(value);
  const text = enumLike && key !== 'id' ? words(value).toLowerCase() : value;
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

function nameOf(r: ResultRecord): { name: string; field?: string } {
  for (const field of NAME_FIELDS) {
    const value = r.fields.find(([k, v]) => k === field && typeof v === 'string' && v !== '')?.[1];
    if (value !== undefined) return { name: valueText(field, value), field };
  }
  return { name: `the ${r.label.replace(/s$/, '')}` };
}

function joined(parts: readonly string[]): string {
  return parts.length < 2 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** A record as the answer says it: who (`“Users may…” (EX0142)`) and what of it (`has status … and is not resolved`). */
function quote(r: ResultRecord): { named: string; facts: string } {
  const { name, field } = nameOf(r);
  const id = r.fields.find(([k, v]) => k === 'id' && field !== 'id' && typeof v === 'string' && v.length <= 24)?.[1];
  const has: string[] = [];
  const is: string[] = [];
  for (const [key, value] of r.fields) {
    if (key === field || key === 'id' || has.length + is.length >= MAX_FACTS) continue;
    if (typeof value === 'boolean' && /^is[A-Z]/.test(key))
      is.push(`is ${value ? '' : 'not '}${words(key.slice(2, 3).toLowerCase() + key.slice(3))}`);
    else
      has.push(
        `${words(key).replace(/ date time$/, '')} ${typeof value === 'boolean' ? (value ? 'yes' : 'no') : valueText(key, value)}`,
      );
  }
  const named = `${field === 'title' ? `“${name}”` : name}${id ? ` (${id})` : ''}`;
  const facts = has.length ? `has ${joined(has)}${is.length ? `, and ${joined(is)}` : ''}` : joined(is);
  return { named, facts };
}

/** "Exchange Online (Exchange) has status extended recovery", or the name alone when the record says nothing more. */
function said(q: { named: string; facts: string }): string {
  return q.facts ? `${q.named} ${q.facts}` : q.named;
}

/** Whether a record names the subject: 2 when a naming field is the subject, 1 when some text holds it. */
function relevance(r: ResultRecord, subject: Subject | undefined): number {
  if (!subject) return 0;
  const wanted = subject.bare.toLowerCase();
  let score = 0;
  for (const [key, value] of r.fields) {
    if (typeof value !== 'string') continue;
    const text = value.toLowerCase();
    if (NAME_FIELDS.includes(key) && (text === wanted || text.startsWith(`${wanted} `))) return 2;
    if (text.includes(wanted)) score = 1;
  }
  return score;
}

/** "key value" pairs of a call's arguments, for "found nothing for id Berlin". */
function argumentsText(json: string): string {
  try {
    const args = JSON.parse(json) as unknown;
    if (args && typeof args === 'object' && !Array.isArray(args)) {
      const pairs = Object.entries(args).map(
        ([k, v]) => `${words(k)} ${typeof v === 'string' ? v : JSON.stringify(v)}`,
      );
      if (pairs.length) return ` for ${joined(pairs)}`;
    }
  } catch {
    // Not JSON: said without its arguments.
  }
  return '';
}

/** One or two sentences saying what one tool result holds, the record about the subject first. */
function resultSentences(result: ToolResult, subject: Subject | undefined, before: Set<string>): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(result.content);
  } catch {
    const text = result.content.trim().replace(/\s+/g, ' ');
    return [
      text
        ? `${result.name} returned “${text.length > 120 ? `${text.slice(0, 117)}…` : text}”.`
        : `${result.name} returned nothing.`,
    ];
  }
  const envelope =
    parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && ('data' in parsed || 'errors' in parsed)
      ? (parsed as { data?: unknown; errors?: Array<{ message?: unknown }> })
      : undefined;
  const all: ResultRecord[] = [];
  records(envelope ? envelope.data : parsed, 'result', undefined, all);
  const error = envelope?.errors?.find((e) => typeof e?.message === 'string')?.message as string | undefined;
  if (!all.length) {
    if (error)
      return [
        `${result.name} failed: ${error.length > 160 ? `${error.slice(0, 157)}…` : error}`.replace(/([^.])$/, '$1.'),
      ];
    return [`${result.name} found nothing${argumentsText(result.arguments)}.`];
  }
  let best = all[0];
  for (const r of all) if (relevance(r, subject) > relevance(best, subject)) best = r;
  const sentences: string[] = [];
  const main = quote(best);
  const text = said(main);
  if (before.has(text)) sentences.push(`${result.name} says the same.`);
  else if (best.listSize && best.listSize > 1 && relevance(best, subject) === 0)
    sentences.push(
      `${result.name} returned ${best.listSize} ${best.label}; the first, ${main.named}, ${main.facts || 'says no more'}.`,
    );
  else sentences.push(`According to ${result.name}, ${text}.`);
  before.add(text);
  const child = best.children[0];
  if (child) {
    const size = child.listSize ?? 1;
    const { named, facts } = quote(child);
    sentences.push(
      `${size > 1 ? `The first of its ${size} ${child.label}` : `Its ${child.label.replace(/s$/, '')}`}, ${named}${facts ? `, ${facts}` : ''}.`,
    );
  }
  return sentences;
}

// ---- Answers and reasoning --------------------------------------------------------------------------------------

function pick<T>(rng: () => number, list: readonly T[]): T {
  return list[Math.floor(rng() * list.length)];
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const OPENINGS = [
  'You asked about {s}.',
  'Here is a short answer about {s}.',
  'A few words on {s}.',
  'On {s}, briefly.',
];
const TRANSITIONS = [
  'In short',
  'In practice',
  'Most of the time',
  'Put simply',
  'Above all',
  'As a rule',
  'Broadly',
  'Also',
];
// What can be said of nearly anything, [singular, plural].
const PREDICATES: ReadonlyArray<readonly [string, string]> = [
  [
    'sits between the people who ask and the systems that answer',
    'sit between the people who ask and the systems that answer',
  ],
  ['is easiest to judge by what it does day to day', 'are easiest to judge by what they do day to day'],
  ['has a few trade-offs worth knowing', 'have a few trade-offs worth knowing'],
  ['depends on how it is set up', 'depend on how they are set up'],
  ['works best when it is kept simple', 'work best when they are kept simple'],
  ['touches several moving parts', 'touch several moving parts'],
  ['matters most when something goes wrong', 'matter most when something goes wrong'],
  ['is worth a closer look in your own setup', 'are worth a closer look in your own setup'],
  ['changes less often than people expect', 'change less often than people expect'],
];
const ASIDES = [
  'the exact answer depends on your setup',
  'a real model would say more here',
  'the main trade-off is speed against cost',
  'it helps to start small',
  'the details are worth checking',
  'most of it follows from one idea',
];

/** Remarks about the subject (or "it"), from a small grammar, none twice in one answer. */
function remarks(rng: () => number, subject: Subject | undefined, count: number): string[] {
  const plural = subject?.plural ?? false;
  const predicates = [...PREDICATES];
  const asides = [...ASIDES];
  const transitions = [...TRANSITIONS];
  const take = <T>(list: T[]): T => list.splice(Math.floor(rng() * list.length), 1)[0];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const who = i === 0 && subject ? subject.phrase : plural ? 'they' : 'it';
    const predicate = take(predicates)[plural ? 1 : 0];
    // The first names the subject; later ones may say something general instead.
    const form = Math.floor(rng() * (i === 0 ? 2 : 3));
    if (form === 0) out.push(`${capitalised(who)} ${predicate}.`);
    else if (form === 1) out.push(`${take(transitions)}, ${who} ${predicate}.`);
    else out.push(`${take(transitions)}, ${take(asides)}.`);
  }
  return out;
}

/** The last sentence of every answer: who wrote it, and where to read how to ask the real model. */
export function emulatedNote(model: string): string {
  return `An emulated ${model} wrote this; docs/getting-started.md says how to ask the real one.`;
}

/** What else a long answer says is worth knowing about the subject, and what it says of each. */
const POINTS = [
  'what it costs to run',
  'how it fails and recovers',
  'who depends on it',
  'how it is watched in production',
  'how it behaves under load',
  'what changes with each upgrade',
  'how access to it is controlled',
  'how it is tested',
  'where its limits are set',
  'what its logs tell you',
];
const POINT_REMARKS = [
  'is the first thing to check',
  'is easy to overlook',
  'decides most of the trade-offs',
  'is worth writing down',
  'tends to change over time',
  'is where surprises come from',
  'is worth measuring rather than guessing',
  'matters more than it first seems',
];
/** Points a long answer goes through. */
const LONG_POINTS = 7;

/** A long answer's second paragraph: points worth knowing about the subject, one remark on each, an offer to go on. */
function morePoints(rng: () => number, subject: Subject | undefined): string[] {
  const points = [...POINTS];
  const remarks = [...POINT_REMARKS];
  const take = <T>(list: T[]): T => list.splice(Math.floor(rng() * list.length), 1)[0];
  const chosen = Array.from({ length: LONG_POINTS }, () => take(points));
  return [
    `Beyond that, ${LONG_POINTS} things are worth knowing about ${subject ? subject.phrase : 'it'}: ${joined(chosen)}.`,
    ...chosen.map((point) => `${capitalised(point)} ${take(remarks)}.`),
    `${pick(rng, TRANSITIONS)}, ${pick(rng, ASIDES)}.`,
    'Ask about any of these for more detail.',
  ];
}

/**
 * The answer's sentences: over documents, their names and the passage that answers; with tool results, what they
 * hold about the subject; without, an opening that names the subject and two to four remarks about it. A `long`
 * answer (a person watching, SANDBOX_ANSWER_LENGTH) quotes more passages, or goes on with points worth knowing. The
 * emulated-model note is left to the caller.
 */
export function answerSentences(conversation: Conversation, rng: () => number, long = false): string[] {
  const sentences = shortAnswer(conversation, rng, long);
  if (long && !conversation.documents.length && !conversation.results.length && conversation.subject)
    sentences.push(...morePoints(rng, conversation.subject));
  return sentences;
}

function shortAnswer(conversation: Conversation, rng: () => number, long: boolean): string[] {
  const { subject, results } = conversation;
  const sentences: string[] = conversation.greeting ? ['Hello!'] : [];
  if (conversation.documents.length) {
    sentences.push(...documentSentences(conversation, long));
    if (!results.length) {
      sentences.push(`${pick(rng, TRANSITIONS)}, ${pick(rng, ASIDES)}.`);
      return sentences;
    }
  }
  if (results.length) {
    const names = [...new Set(results.map((r) => r.name))];
    sentences.push(`Here is what ${joined(names)} returned${subject ? ` about ${subject.phrase}` : ''}.`);
    const said = new Set<string>();
    for (const result of results.slice(0, MAX_RESULTS_QUOTED))
      sentences.push(...resultSentences(result, subject, said));
    if (results.length > MAX_RESULTS_QUOTED)
      sentences.push(`${results.length - MAX_RESULTS_QUOTED} more results are not quoted here.`);
    sentences.push(`${pick(rng, TRANSITIONS)}, ${pick(rng, ASIDES)}.`);
    return sentences;
  }
  if (conversation.greeting && !subject)
    return [
      ...sentences,
      'Nice to meet you.',
      pick(rng, ['Ask me anything.', 'What would you like to know?', 'How can I help?']),
    ];
  sentences.push(subject ? capitalised(pick(rng, OPENINGS).replace('{s}', subject.phrase)) : 'Here is a short answer.');
  sentences.push(...remarks(rng, subject, 1 + Math.floor(rng() * 3)));
  return sentences;
}

const THINKING = [
  'Let me keep the answer short.',
  'I will say the main point first.',
  'Wait, the details depend on the setup.',
  'Hmm, one example would help.',
  'So the answer should be clear and brief.',
  'Now let me check that nothing is missing.',
  'First what it is, then why it matters.',
];

/** Reasoning sentences, endless: the caller takes as many tokens as the effort allows. */
export function* reasoningSentences(
  conversation: Conversation,
  offeredTools: readonly string[],
  rng: () => number,
): Generator<string> {
  const { subject, results } = conversation;
  yield subject
    ? pick(rng, ['Okay, the question is about {s}.', 'The user asks about {s}.', 'So this is about {s}.']).replace(
        '{s}',
        subject.phrase,
      )
    : 'Okay, let me think about the question.';
  if (conversation.documents.length)
    yield `${joined([...new Set(conversation.documents.map((d) => d.name))])} came with the question, so I look there first.`;
  if (results.length)
    yield `${joined([...new Set(results.map((r) => r.name))])} answered, so I can quote ${results.length > 1 ? 'them' : 'it'}.`;
  else if (offeredTools.length) yield `I could call ${offeredTools[0]} for that.`;
  else yield 'No tool results, so I answer from what I know.';
  for (;;) yield pick(rng, THINKING);
}

/**
 * Word-piece tokens, as a tokenizer cuts text: each word with the space before it, each punctuation mark, and words
 * longer than nine characters in pieces of six. The tokens join back into the text.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const [t] of text.matchAll(/\s*[\p{L}\p{N}_]+|\s*[^\s\p{L}\p{N}_]/gu)) {
    if (t.length <= 9) tokens.push(t);
    else for (let at = 0; at < t.length; at += 6) tokens.push(t.slice(at, at + 6));
  }
  return tokens;
}

import { badRequest } from '../errors.js';
import { isPrimitive, propertyOf, type EntityType, type Prop } from '../model.js';

/** A compiled `$filter`: true when the entity's value matches. */
export type Predicate = (value: Readonly<Record<string, unknown>>) => boolean;

type TokenKind = '(' | ')' | ',' | ':' | 'string' | 'number' | 'dateTime' | 'ident' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
  pos: number;
}

const COMPARISONS = {
  eq: 'Equal',
  ne: 'NotEqual',
  gt: 'GreaterThan',
  ge: 'GreaterThanOrEqual',
  lt: 'LessThan',
  le: 'LessThanOrEqual',
} as const;
type Comparison = keyof typeof COMPARISONS;
const FUNCTIONS = ['startswith', 'endswith', 'contains'] as const;
type StringFunction = (typeof FUNCTIONS)[number];
type LiteralType = 'string' | 'number' | 'boolean' | 'null' | 'dateTime';

type Node =
  | { k: 'lit'; type: LiteralType; v: string | number | boolean | null }
  | { k: 'prop'; name: string; prop: Prop }
  | { k: 'var' }
  | { k: 'cmp'; op: Comparison; l: Node; r: Node }
  | { k: 'in'; l: Node; list: Node[] }
  | { k: 'and' | 'or'; l: Node; r: Node }
  | { k: 'not'; e: Node }
  | { k: 'call'; fn: StringFunction; a: Node; b: Node }
  | { k: 'any'; name: string; v?: string; body?: Node };

const GUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\w-])/y;
const DATE = /\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2}))?(?![\w:-])/y;
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?(?![\w.])/y;
const IDENT = /[A-Za-z_]\w*(\/[A-Za-z_]\w*)*/y;
/** Tried in this order at each position: a GUID or a date would otherwise read as a number. */
const LEXEMES: ReadonlyArray<readonly [RegExp, TokenKind]> = [
  [GUID, 'string'],
  [DATE, 'dateTime'],
  [NUMBER, 'number'],
  [IDENT, 'ident'],
];

function lex(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const sticky = (re: RegExp): string | undefined => {
    re.lastIndex = i;
    return re.exec(src)?.[0];
  };
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === ',' || c === ':') {
      tokens.push({ kind: c, text: c, pos: i++ });
      continue;
    }
    if (c === "'") {
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= src.length) throw badRequest(`Syntax error in $filter: unterminated string literal at position ${i}.`);
        if (src[j] === "'") {
          if (src[j + 1] !== "'") break;
          text += "'";
          j += 2;
        } else text += src[j++];
      }
      tokens.push({ kind: 'string', text, pos: i });
      i = j + 1;
      continue;
    }
    let m: string | undefined;
    let kind: TokenKind | undefined;
    for (const [re, k] of LEXEMES) {
      m = sticky(re);
      if (m) {
        kind = k;
        break;
      }
    }
    if (!kind || !m) throw badRequest(`Syntax error in $filter: unexpected '${c}' at position ${i}.`);
    tokens.push({ kind, text: m, pos: i });
    i += m.length;
  }
  tokens.push({ kind: 'end', text: '', pos: src.length });
  return tokens;
}

class Parser {
  private i = 0;
  private rangeVar: string | undefined;
  constructor(
    private readonly tokens: Token[],
    private readonly type: EntityType,
  ) {}

  parse(): Node {
    const node = this.or();
    const t = this.peek();
    if (t.kind !== 'end') throw badRequest(`Syntax error in $filter: unexpected '${t.text}' at position ${t.pos}.`);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.i];
  }
  private next(): Token {
    return this.tokens[this.i++];
  }
  private keyword(word: string): boolean {
    const t = this.peek();
    if (t.kind === 'ident' && t.text === word) {
      this.i++;
      return true;
    }
    return false;
  }
  private expect(kind: TokenKind): Token {
    const t = this.next();
    if (t.kind !== kind) {
      throw badRequest(
        `Syntax error in $filter: expected '${kind}' at position ${t.pos}, found '${t.text || 'end of expression'}'.`,
      );
    }
    return t;
  }

  private or(): Node {
    let l = this.and();
    while (this.keyword('or')) l = { k: 'or', l, r: this.and() };
    return l;
  }
  private and(): Node {
    let l = this.not();
    while (this.keyword('and')) l = { k: 'and', l, r: this.not() };
    return l;
  }
  private not(): Node {
    return this.keyword('not') ? { k: 'not', e: this.not() } : this.comparison();
  }
  private comparison(): Node {
    const l = this.primary();
    const t = this.peek();
    if (t.kind !== 'ident') return l;
    if (t.text in COMPARISONS) {
      this.i++;
      return { k: 'cmp', op: t.text as Comparison, l, r: this.primary() };
    }
    if (t.text === 'in') {
      this.i++;
      this.expect('(');
      const list = [this.primary()];
      while (this.peek().kind === ',') {
        this.i++;
        list.push(this.primary());
      }
      this.expect(')');
      return { k: 'in', l, list };
    }
    if (t.text === 'has') throw badRequest(`The 'has' operator is not supported on type '${this.type.name}'.`);
    return l;
  }
  private primary(): Node {
    const t = this.next();
    switch (t.kind) {
      case '(': {
        const e = this.or();
        this.expect(')');
        return e;
      }
      case 'string':
        return { k: 'lit', type: 'string', v: t.text };
      case 'number':
        return { k: 'lit', type: 'number', v: Number(t.text) };
      case 'dateTime':
        return { k: 'lit', type: 'dateTime', v: Date.parse(t.text.length === 10 ? `${t.text}T00:00:00Z` : t.text) };
      case 'ident':
        return this.identifier(t);
      default:
        throw badRequest(
          `Syntax error in $filter: unexpected '${t.text || 'end of expression'}' at position ${t.pos}.`,
        );
    }
  }
  private identifier(t: Token): Node {
    if (t.text === 'true' || t.text === 'false') return { k: 'lit', type: 'boolean', v: t.text === 'true' };
    if (t.text === 'null') return { k: 'lit', type: 'null', v: null };
    if (this.peek().kind === '(' && !t.text.includes('/')) {
      if (!(FUNCTIONS as readonly string[]).includes(t.text))
        throw badRequest(`An unknown function with name '${t.text}' was found in $filter.`);
      this.i++;
      const a = this.or();
      this.expect(',');
      const b = this.or();
      this.expect(')');
      return { k: 'call', fn: t.text as StringFunction, a, b };
    }
    if (t.text === this.rangeVar) return { k: 'var' };
    const slash = t.text.indexOf('/');
    if (slash !== -1) return this.lambda(t.text.slice(0, slash), t.text.slice(slash + 1));
    const prop = propertyOf(this.type, t.text);
    if (!isPrimitive(prop)) throw badRequest(`The property '${t.text}' cannot be used in the $filter query option.`);
    return { k: 'prop', name: t.text, prop };
  }
  private lambda(name: string, operator: string): Node {
    const prop = propertyOf(this.type, name);
    if (operator === 'all') throw badRequest(`The 'all' lambda operator is not supported; use 'any'.`);
    if (operator !== 'any' || prop !== 'collection')
      throw badRequest(`The property '${name}/${operator}' cannot be used in the $filter query option.`);
    this.expect('(');
    if (this.peek().kind === ')') {
      this.i++;
      return { k: 'any', name };
    }
    const v = this.expect('ident').text;
    this.expect(':');
    const outer = this.rangeVar;
    this.rangeVar = v;
    const body = this.or();
    this.rangeVar = outer;
    this.expect(')');
    return { k: 'any', name, v, body };
  }
}

type Eval = (value: Readonly<Record<string, unknown>>, element: unknown) => unknown;

const EDM: Record<string, string> = {
  string: 'Edm.String',
  number: 'Edm.Double',
  boolean: 'Edm.Boolean',
  dateTime: 'Edm.DateTimeOffset',
  null: 'null',
};
const edmOf = (n: Node): string =>
  n.k === 'lit'
    ? EDM[n.type]
    : n.k === 'prop'
      ? Array.isArray(n.prop)
        ? 'microsoft.graph.enum'
        : EDM[n.prop as string]
      : 'Edm.String';

/** Normalises values of one property kind so that enums compare case-insensitively and dates by instant. */
function normaliser(kind: Prop | 'var'): (v: unknown) => unknown {
  if (Array.isArray(kind)) return (v) => (typeof v === 'string' ? v.toLowerCase() : v);
  if (kind === 'dateTime') return (v) => (typeof v === 'string' ? Date.parse(v) : v);
  return (v) => v;
}

function checkLiteral(kind: Prop | 'var', lit: Node & { k: 'lit' }, other: Node, op: string): void {
  if (lit.type === 'null') return;
  const ok =
    kind === 'boolean'
      ? lit.type === 'boolean'
      : kind === 'dateTime'
        ? lit.type === 'dateTime' || (lit.type === 'string' && !Number.isNaN(Date.parse(lit.v as string)))
        : lit.type === 'string';
  if (!ok || (lit.type === 'dateTime' && Number.isNaN(lit.v))) {
    throw badRequest(
      `A binary operator with incompatible types was detected. Found operand types '${edmOf(other)}' and '${edmOf(lit)}' for operator kind '${op}'.`,
    );
  }
}

function operands(l: Node, r: Node, op: string): [Eval, Eval] {
  const side = l.k === 'prop' || l.k === 'var' ? l : r.k === 'prop' || r.k === 'var' ? r : undefined;
  const kind: Prop | 'var' = side?.k === 'prop' ? side.prop : 'var';
  const norm = side ? normaliser(kind) : (v: unknown) => v;
  return [l, r].map((n) => {
    if (side && n !== side && n.k === 'lit') checkLiteral(kind, n, side, op);
    const f = compileNode(n);
    return n.k === 'lit'
      ? (
          (c) => () =>
            c
        )(norm(f({}, undefined)))
      : (v: Record<string, unknown>, e: unknown) => norm(f(v, e));
  }) as [Eval, Eval];
}

function compare(op: Comparison, a: unknown, b: unknown): boolean {
  if (op === 'eq') return a === b;
  if (op === 'ne') return a !== b;
  if (a === null || a === undefined || b === null || b === undefined) return false;
  const x = a as number | string;
  const y = b as number | string;
  return op === 'gt' ? x > y : op === 'ge' ? x >= y : op === 'lt' ? x < y : x <= y;
}

function compileNode(n: Node): Eval {
  switch (n.k) {
    case 'lit':
      return () => n.v;
    case 'prop':
      return (v) => v[n.name] ?? null;
    case 'var':
      return (_v, e) => e;
    case 'and': {
      const [l, r] = [compileNode(n.l), compileNode(n.r)];
      return (v, e) => l(v, e) === true && r(v, e) === true;
    }
    case 'or': {
      const [l, r] = [compileNode(n.l), compileNode(n.r)];
      return (v, e) => l(v, e) === true || r(v, e) === true;
    }
    case 'not': {
      const inner = compileNode(n.e);
      return (v, e) => inner(v, e) !== true;
    }
    case 'cmp': {
      const [l, r] = operands(n.l, n.r, COMPARISONS[n.op]);
      return (v, e) => compare(n.op, l(v, e), r(v, e));
    }
    case 'in': {
      const [l] = operands(n.l, n.l, 'In');
      const members = n.list.map((item) => {
        if (item.k !== 'lit') throw badRequest(`The right side of 'in' must be a list of literals.`);
        return operands(n.l, item, 'In')[1]({}, undefined);
      });
      const set = new Set(members);
      return (v, e) => set.has(l(v, e));
    }
    case 'call': {
      const [a, b] = [compileNode(n.a), compileNode(n.b)];
      const test =
        n.fn === 'startswith'
          ? (x: string, y: string) => x.startsWith(y)
          : n.fn === 'endswith'
            ? (x: string, y: string) => x.endsWith(y)
            : (x: string, y: string) => x.includes(y);
      return (v, e) => {
        const x = a(v, e);
        const y = b(v, e);
        return typeof x === 'string' && typeof y === 'string' && test(x.toLowerCase(), y.toLowerCase());
      };
    }
    case 'any': {
      const body = n.body ? compileNode(n.body) : undefined;
      return (v) => {
        const list = v[n.name];
        return Array.isArray(list) && (body ? list.some((item) => body(v, item) === true) : list.length > 0);
      };
    }
  }
}

/** Parses a `$filter` expression against an entity type; throws a 400 GraphError naming the bad token. */
export function parseFilter(text: string, type: EntityType): Predicate {
  if (!text.trim()) throw badRequest('The $filter query option must not be empty.');
  const evaluate = compileNode(new Parser(lex(text), type).parse());
  return (value) => evaluate(value, undefined) === true;
}

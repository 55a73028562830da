import { describe, expect, it } from 'vitest';
import { SseParser } from '../../../src/upstreams/chat/eventStreamParser.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('SseParser', () => {
  it('reassembles an event split across chunks, even inside a multi-byte character', () => {
    const p = new SseParser();
    const whole = bytes('data: {"content":"。"}\n\n');
    const cut = whole.indexOf(0xe3) + 1; // in the middle of the three bytes of 。
    expect(p.push(whole.slice(0, 5))).toEqual([]);
    expect(p.push(whole.slice(5, cut))).toEqual([]);
    expect(p.push(whole.slice(cut))).toEqual([{ event: 'message', data: '{"content":"。"}' }]);
  });

  it('ignores comments and keep-alive lines, and accepts CRLF and CR line ends, also split between chunks', () => {
    const p = new SseParser();
    const events = [
      ...p.push(': keep-alive\r\n\r\ndata: a\r'),
      ...p.push('\n\r\ndata: b\r\rdata:c\n\n'),
      ...p.push('data: [DONE]\n\n'),
    ];
    expect(events.map((e) => e.data)).toEqual(['a', 'b', 'c', '[DONE]']);
  });

  it('joins several data lines of one event and keeps the event name', () => {
    const p = new SseParser();
    expect(p.push('event: error\ndata: {"a":\ndata: 1}\n\n')).toEqual([{ event: 'error', data: '{"a":\n1}' }]);
  });

  it('reads a field by its whole name: one space after the colon dropped, a field without a colon empty, others ignored', () => {
    const p = new SseParser();
    expect(p.push('data:  two\ndataX: no\nid: 7\ndata\nevent\n\n')).toEqual([{ event: 'message', data: ' two\n' }]);
    expect(p.push('event:custom\ndata:x\n\ndata: y\n\n')).toEqual([
      { event: 'custom', data: 'x' },
      { event: 'message', data: 'y' },
    ]);
    // A blank line with no data line before it is no event, and the name it had is dropped.
    expect(p.push('event: lost\n\ndata: z\n\n')).toEqual([{ event: 'message', data: 'z' }]);
  });

  it('drops an event without its closing blank line at the end, and says so', () => {
    const p = new SseParser();
    expect(p.push('data: complete\n\ndata: half')).toHaveLength(1);
    expect(p.end()).toEqual({ incomplete: true });
  });
});

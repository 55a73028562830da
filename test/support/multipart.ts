/** One part of Apollo's multipart subscription protocol: `{}` (heartbeat), `{ payload }`, or `{ payload: null, errors }`. */
export interface MultipartPart {
  payload?: { data?: any; errors?: Array<{ message: string; extensions?: Record<string, any> }> } | null;
  errors?: Array<{ message: string; extensions?: Record<string, any> }>;
}

/**
 * Reads a `multipart/mixed` response part by part as it arrives (the way Apollo Client does), calling `onPart` for
 * each; resolves with all parts and whether the closing boundary was seen.
 */
export async function readMultipart(
  res: Response,
  onPart: (part: MultipartPart, all: MultipartPart[]) => boolean | void = () => undefined,
): Promise<{ parts: MultipartPart[]; closed: boolean }> {
  const boundary = /boundary="?([^";]+)"?/.exec(res.headers.get('content-type') ?? '')?.[1];
  if (!boundary) throw new Error(`not a multipart response: ${res.headers.get('content-type')}`);
  const delimiter = `\r\n--${boundary}`;
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const parts: MultipartPart[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    // A part is complete when the next delimiter arrived.
    while ((end = buffer.indexOf(delimiter, 1)) !== -1) {
      const part = buffer.slice(0, end);
      buffer = buffer.slice(end);
      const body = part.slice(part.indexOf('\r\n\r\n') + 4);
      if (part.startsWith(delimiter) && body) {
        parts.push(JSON.parse(body) as MultipartPart);
        if (onPart(parts.at(-1)!, parts) === true) {
          await reader.cancel();
          return { parts, closed: false };
        }
      }
    }
    if (buffer.startsWith(`${delimiter}--`)) {
      await reader.cancel();
      return { parts, closed: true };
    }
  }
  return { parts, closed: buffer.startsWith(`${delimiter}--`) };
}

/**
 * node:http to Web Request/Response and back, with the oversize rule of
 * SPEC "Size and capacity": when the core stops reading a body (a 413), the
 * rest is dropped (the stream paused, never buffered), the answer goes out
 * with connection: close, and the socket is destroyed 250 ms later if the
 * caller keeps sending. Written here rather than taken from an adapter
 * library because that rule needs the socket itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULTS } from '../../src/config/defaults.ts';

/** A Web ReadableStream over the request body; cancelling pauses and drops, never destroys. */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let dropped = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Uint8Array) => {
        if (dropped) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => {
        if (!dropped) controller.close();
      });
      req.on('error', (error) => {
        if (!dropped) controller.error(error);
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      dropped = true;
      req.pause();
    },
  }, { highWaterMark: 4 });
}

/** The Web Request for a node request (`origin` is e.g. http://127.0.0.1:8000). */
export function toRequest(req: IncomingMessage, origin: string, withBody = true): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  const method = req.method ?? 'GET';
  const hasBody = withBody && method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    body: hasBody ? bodyStream(req) : null,
    // @ts-ignore: duplex is needed for a streamed request body
    duplex: hasBody ? 'half' : undefined,
  });
}

/** Writes a Web Response to a node response; applies the oversize socket rule. */
export async function sendResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers);
  if (response.headers.get('connection') === 'close' && !req.complete) {
    res.once('finish', () => {
      const timer = setTimeout(() => req.socket.destroy(), DEFAULTS.oversizeDestroyMs);
      req.socket.once('close', () => clearTimeout(timer));
    });
  }
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.once('close', () => reader.cancel().catch(() => {}));
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resume) => res.once('drain', resume));
    }
    res.end();
  } catch {
    res.destroy();
  }
}

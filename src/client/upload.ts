/**
 * A multipart upload with progress: XMLHttpRequest (fetch reports no upload progress), read
 * like any route answer (route_call.ts). Browser API only.
 */
import { SvcNetworkError } from './errors.ts';
import { readRouteAnswer, type RouteContext, routeUrl, settle } from './route_call.ts';

/** Progress of an upload: bytes sent so far and the total (0 when unknown). */
export interface UploadProgress {
  loaded: number;
  total: number;
}

/** The part of XMLHttpRequest used here (Deno's type library has none; browsers have it). */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  upload: {
    onprogress:
      | ((event: { loaded: number; total: number; lengthComputable: boolean }) => void)
      | null;
  };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  status: number;
  responseText: string;
  send(body: FormData): void;
}

/**
 * Sends the form: XMLHttpRequest where the runtime has it (progress per upload event), else
 * fetch (one progress report at the end).
 */
function send(
  url: string,
  headers: Record<string, string>,
  form: FormData,
  onProgress?: (progress: UploadProgress) => void,
): Promise<{ status: number; text: string }> {
  const Request = (globalThis as unknown as { XMLHttpRequest?: new () => Xhr }).XMLHttpRequest;
  if (!Request) {
    return fetch(url, { method: 'POST', headers, body: form, credentials: 'same-origin' })
      .then(async (r) => ({ status: r.status, text: await r.text() }))
      .then((answer) => {
        onProgress?.({ loaded: 1, total: 1 });
        return answer;
      });
  }
  return new Promise((resolve, reject) => {
    const xhr = new Request();
    xhr.open('POST', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) =>
      onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : 0 });
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => reject(new Error('the upload failed on the network'));
    xhr.send(form);
  });
}

/**
 * POSTs `form` to `path` (query added) and reads the answer through the helper's latch
 * (route_call.ts); `onProgress` per upload event.
 */
export async function uploadForm<T>(
  context: RouteContext,
  path: string,
  query: Record<string, string>,
  form: FormData,
  onProgress?: (progress: UploadProgress) => void,
): Promise<T> {
  const token = await context.getAccessToken?.();
  const url = routeUrl(context.baseUrl, path, query);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  let answer: { status: number; text: string };
  try {
    answer = await send(url, headers, form, onProgress);
  } catch (cause) {
    throw new SvcNetworkError(`Could not reach ${url}`, cause);
  }
  const { status, text } = answer;
  return settle(context, () => readRouteAnswer(path, status, text, context.latch.lapse));
}

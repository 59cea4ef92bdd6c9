/**
 * The piped return path of a REST upload (SPEC "Forwarding rules": the upstream's answer is
 * piped back with its status), bounded (docs/configuration.md "Upstream",
 * UPSTREAM_ANSWER_MAX_BYTES): at most `upstreamAnswerMaxBytes` bytes pass, then the stream errors
 * (the caller sees the answer cut short, the upstream body is cancelled); the call's deadline is
 * cleared however the pipe ends: the answer read whole, the upstream failing, or the caller going
 * away (the caller's cancel reaches the upstream body). The master token is replaced wherever the
 * upstream echoed it, whatever chunks it arrives in (SPEC "What the service does" 1;
 * docs/operations.md "The master token in answers").
 */
import { TokenRedactor } from '../http/token_redaction.ts';
import type { AnswerReader } from '../graphql/learn_stream.ts';

/**
 * A stream over `body` that passes at most `limit` bytes (counted as the upstream sent them), with
 * every form of `token` replaced (none when `token` is null); `done` is called exactly once when it
 * ends, fails, is cut, or is cancelled by its reader. Pull-driven: nothing is read from the
 * upstream ahead of what the caller takes, but the token's length - 1 bytes held back to find a
 * token cut across two chunks (src/http/token_redaction.ts TokenRedactor). `reader`, when given,
 * reads the bytes on the way (the resource fence's ids, src/routes/rest.ts).
 */
export function pipedAnswer(
  body: ReadableStream<Uint8Array>,
  limit: number,
  done: () => void,
  token: string | null,
  reader?: AnswerReader,
): ReadableStream<Uint8Array> {
  const upstream = body.getReader();
  const redactor = token ? new TokenRedactor(token) : null;
  let total = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    done();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // a chunk wholly held back gives nothing to enqueue: read on (a pull that enqueues nothing
        // is not called again)
        for (;;) {
          const { done: finished, value } = await upstream.read();
          if (finished) {
            end();
            reader?.whole();
            const rest = redactor?.end();
            if (rest && rest.byteLength > 0) controller.enqueue(rest);
            return controller.close();
          }
          total += value.byteLength;
          if (total > limit) throw new Error(`the upstream's answer is over ${limit} bytes`);
          reader?.push(value);
          const out = redactor ? redactor.push(value) : value;
          if (out.byteLength > 0 || value.byteLength === 0) return controller.enqueue(out);
        }
      } catch (error) {
        end();
        await upstream.cancel().catch(() => {});
        controller.error(error);
      }
    },
    async cancel(reason) {
      end();
      await upstream.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}

/**
 * The piped return path of a REST upload (SPEC "Forwarding rules": the upstream's answer is
 * piped back with its status), bounded (docs/configuration.md "Upstream",
 * UPSTREAM_ANSWER_MAX_BYTES): at most `upstreamAnswerMaxBytes` bytes pass, then the stream errors
 * (the caller sees the answer cut short, the upstream body is cancelled); the call's deadline is
 * cleared however the pipe ends: the answer read whole, the upstream failing, or the caller going
 * away (the caller's cancel reaches the upstream body).
 */

/**
 * A stream over `body` that passes at most `limit` bytes; `done` is called exactly once when it
 * ends, fails, is cut, or is cancelled by its reader. Pull-driven: nothing is read from the
 * upstream ahead of what the caller takes.
 */
export function pipedAnswer(
  body: ReadableStream<Uint8Array>,
  limit: number,
  done: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
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
        const { done: finished, value } = await reader.read();
        if (finished) {
          end();
          return controller.close();
        }
        total += value.byteLength;
        if (total > limit) throw new Error(`the upstream's answer is over ${limit} bytes`);
        controller.enqueue(value);
      } catch (error) {
        end();
        await reader.cancel().catch(() => {});
        controller.error(error);
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}

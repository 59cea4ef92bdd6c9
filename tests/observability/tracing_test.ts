/**
 * Traces (docs/operations.md "Traces") on both hosts: with OTEL_EXPORTER_OTLP_ENDPOINT pointing at
 * a local OTLP/HTTP receiver started here, a forwarded GraphQL POST exports `svc.graphql` with a
 * child `svc.upstream`, a refusal exports the code and the check-order row; the trace is the
 * gateway's own (a caller's traceparent is neither continued nor forwarded).
 */
import assert from 'node:assert/strict';
import { forwarded, postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { refusedTextPlain, subscribeToEnd } from './helpers.ts';

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** A receiver of OTLP/HTTP JSON trace exports. */
function startReceiver() {
  const spans: OtlpSpan[] = [];
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    for (const rs of body.resourceSpans ?? []) {
      for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
    }
    return Response.json({});
  });
  const url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  return { url, spans, close: () => server.shutdown() };
}

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
}

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';

for (const kind of HOSTS) {
  Deno.test(`[${kind}] OTLP traces of a forward, a refusal and a subscription`, async () => {
    const receiver = startReceiver();
    try {
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
      await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
        const res = await postGraphql(gateway.url, {
          query: 'query DealsIndicator($botID: BotID!) { bot(id: $botID) { id } }',
          variables: { botID: WORLD_IDS.bot1 },
        }, { traceparent: `00-${CALLER_TRACE}-b7ad6b7169203331-01` });
        await res.body?.cancel();
        assert.equal(res.status, 200);
        await refusedTextPlain(gateway.url);
        const events = await subscribeToEnd(gateway.url);
        assert.equal(events, 3, 'the subscription ran to its end');
        for (let i = 0; i < 150 && receiver.spans.length < 4; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const graphql = receiver.spans.filter((s) => s.name === 'svc.graphql');
        const upstream = receiver.spans.filter((s) => s.name === 'svc.upstream');
        assert.equal(graphql.length, 2, JSON.stringify(receiver.spans));
        assert.equal(upstream.length, 1);
        const ok = graphql.find((s) => attribute(s, 'svc.status') === 200)!;
        assert.ok(ok, 'the forwarded request has a span with its status');
        assert.equal(upstream[0].traceId, ok.traceId);
        assert.equal(upstream[0].parentSpanId, ok.spanId);
        assert.ok(!ok.parentSpanId, 'a root span: the caller is not its parent');
        assert.notEqual(ok.traceId.toLowerCase(), CALLER_TRACE, 'the trace is the gateway’s own');
        const refused = graphql.find((s) => attribute(s, 'svc.status') === 415)!;
        assert.equal(attribute(refused, 'svc.refusal.code'), 'UnsupportedMediaType');
        assert.equal(attribute(refused, 'svc.refusal.step'), '1');
        const subscriptions = receiver.spans.filter((s) => s.name === 'svc.subscription');
        assert.equal(subscriptions.length, 1, 'one span per relayed subscription, ended');
        assert.ok(!subscriptions[0].parentSpanId);
        const sent = forwarded(sandbox);
        assert.equal(sent.length, 1);
        assert.equal(sent[0].headers.traceparent, undefined, 'no trace header forwarded');
      });
    } finally {
      await receiver.close();
    }
  });
}

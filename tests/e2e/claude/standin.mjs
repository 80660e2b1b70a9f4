// A local stand-in for the Anthropic Messages API, enough for one turn of an
// agent: the request that offers the agent's tools gets a tool_use of `tool`
// with `input`; the request that carries its tool_result is recorded and ends
// the turn. Any other request (a title, a quota check) gets a short text.
// Streaming requests (`stream: true`) are answered with the Messages API's
// server-sent events, others with the message as JSON.

import http from 'node:http';

// startStandIn listens on 127.0.0.1 and resolves to {url, requests,
// toolResults, close}: requests are every request's method, path and body;
// toolResults the tool_result blocks the agent sent its model.
export async function startStandIn({ tool, input }) {
  const requests = [];
  const toolResults = [];
  let calls = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      let json = null;
      try { json = body ? JSON.parse(body) : null; } catch { /* not JSON */ }
      requests.push({ method: req.method, url: req.url, body: json });
      if (req.method !== 'POST' || !req.url.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: req.url } }));
        return;
      }
      if (req.url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 100 }));
        return;
      }
      reply(res, json, answer(json));
    });
  });

  // answer picks the content of the reply to a request.
  function answer(json) {
    const msgs = json?.messages ?? [];
    const last = msgs[msgs.length - 1];
    const results = Array.isArray(last?.content) ? last.content.filter((b) => b.type === 'tool_result') : [];
    if (results.length > 0) {
      toolResults.push(...results);
      return { content: [{ type: 'text', text: 'The build failed; the error is shown above.' }], stop: 'end_turn' };
    }
    if ((json?.tools ?? []).some((t) => t.name === tool)) {
      calls++;
      return {
        content: [{ type: 'tool_use', id: `toolu_standin_${calls}`, name: tool, input }],
        stop: 'tool_use',
      };
    }
    return { content: [{ type: 'text', text: 'ok' }], stop: 'end_turn' };
  }

  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    toolResults,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }),
  };
}

let seq = 0;

// reply writes a message with content and stop reason, as JSON or, for a
// streaming request, as the events of the Messages API's stream.
function reply(res, json, { content, stop }) {
  const id = `msg_standin_${++seq}`;
  const model = json?.model ?? 'claude-standin';
  const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!json?.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': id });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': id });
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
  send('message_stop', {});
  res.end();
}

// Local stand-ins for the model APIs of codex (OpenAI's Responses API) and
// gemini-cli (the Gemini API), enough for one turn of an agent that calls
// tools: each request that offers the agent's tools is answered with the next
// call of a script ({tool, args}), each tool result the agent sends back is
// recorded, and when the script is done the turn ends with a short text. Any
// other request (gemini-cli's model router) gets a short answer of its own.
// Both stream, as the agents ask them to (server-sent events).

import http from 'node:http';

// serve listens on 127.0.0.1 and resolves to {url, close}; handle(req, body)
// answers each request.
async function serve(handle) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      let json = null;
      try { json = body ? JSON.parse(body) : null; } catch { /* not JSON */ }
      handle(req, json, res);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }),
  };
}

// turn keeps a script's progress: offered (the tool names of the first
// request that offered tools), results (the agent's tool results, in order).
function turn(script) {
  return { script, step: 0, offered: null, results: [], requests: 0 };
}

// startResponses is the stand-in for codex: POST /v1/responses. codex offers
// an MCP server's tools as one namespace (mcp__SERVER) of functions named as
// the server names them; a call names both.
export async function startResponses({ server, script }) {
  const t = turn(script);
  const namespace = `mcp__${server}`;
  const s = await serve((req, json, res) => {
    t.requests++;
    if (req.method !== 'POST' || !req.url.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    const ns = (json.tools ?? []).find((x) => x.name === namespace);
    if (ns && !t.offered) t.offered = (ns.tools ?? []).map((x) => x.name);
    const last = json.input?.[json.input.length - 1];
    if (last?.type === 'function_call_output') {
      const out = last.output;
      t.results.push(typeof out === 'string' ? out : out.map((c) => c.text ?? '').join('\n'));
    }
    let item;
    if (ns && t.step < t.script.length) {
      const { tool, args } = t.script[t.step++];
      item = { type: 'function_call', id: `fc_${t.step}`, call_id: `call_${t.step}`, name: tool, namespace, arguments: JSON.stringify(args) };
    } else {
      item = { type: 'message', role: 'assistant', id: `msg_${t.requests}`, content: [{ type: 'output_text', text: 'Done.' }] };
    }
    const id = `resp_${t.requests}`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('response.created', { response: { id } });
    send('response.output_item.done', { item });
    send('response.completed', { response: { id, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } } });
    res.end();
  });
  return { ...s, turn: t };
}

// startGemini is the stand-in for gemini-cli: POST
// /v1beta/models/MODEL:streamGenerateContent (and :generateContent, which
// its model router asks first). gemini-cli names an MCP tool
// mcp_SERVER_TOOL.
export async function startGemini({ server, script }) {
  const t = turn(script);
  const prefix = `mcp_${server}_`;
  const s = await serve((req, json, res) => {
    t.requests++;
    const decls = (json?.tools ?? []).flatMap((x) => x.functionDeclarations ?? []);
    const ours = decls.map((d) => d.name).filter((n) => n.startsWith(prefix));
    if (decls.length > 0 && !t.offered) t.offered = ours.map((n) => n.slice(prefix.length));
    const contents = json?.contents ?? [];
    const answer = (contents[contents.length - 1]?.parts ?? []).find((p) => p.functionResponse);
    if (answer) {
      const r = answer.functionResponse.response ?? {};
      t.results.push(typeof r.output === 'string' ? r.output : JSON.stringify(r));
    }
    let parts;
    if (decls.length === 0) {
      // The router's question: how hard is the task.
      parts = [{ text: JSON.stringify({ complexity_reasoning: 'one tool call', complexity_score: 1 }) }];
    } else if (t.step < t.script.length) {
      const { tool, args } = t.script[t.step++];
      parts = [{ functionCall: { name: prefix + tool, args } }];
    } else {
      parts = [{ text: 'Done.' }];
    }
    const msg = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    };
    if (req.url.includes(':streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(msg)}\n\n`);
    } else if (req.url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(msg));
    }
  });
  return { ...s, turn: t };
}

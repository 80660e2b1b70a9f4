// MCP progress end to end: the official MCP TypeScript client, with a 2 s
// request timeout that progress resets, gets the full result of a 6 s
// command from `toold mcp`; without progress the same call times out.
//
//   cd tests/e2e && npm ci && TOOLD_BIN=/path/to/toold npm test

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOOLD_BIN = path.resolve(here, process.env.TOOLD_BIN || '../../toold');
// The daemons' spool root (0700, as the daemon wants it), removed at the end:
// each daemon removes its own directories in it, not the root.
const spoolRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'toold-e2e-progress-'));
after(() => fs.rmSync(spoolRoot, { recursive: true, force: true }));

async function connect() {
  const transport = new StdioClientTransport({
    command: TOOLD_BIN,
    args: ['mcp', '--structured', '--spool-root', spoolRoot],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'toold-e2e-progress', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const sixSeconds = 'for i in $(seq 1 12); do echo "step $i"; sleep 0.5; done';

test('a 6 s command under a 2 s timeout that progress resets gives its full result', async () => {
  const client = await connect();
  try {
    const progress = [];
    const res = await client.callTool(
      { name: 'exec', arguments: { command: sixSeconds } },
      undefined,
      { timeout: 2000, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p) },
    );
    assert.equal(res.isError, undefined);
    assert.equal(res.structuredContent.exitCode, 0);
    assert.equal(res.structuredContent.stdout.totalLines, 12);
    assert.match(res.content[0].text, /step 12/);
    assert.ok(progress.length >= 6, `only ${progress.length} progress notifications`);
    for (let i = 1; i < progress.length; i++) {
      assert.ok(progress[i].progress > progress[i - 1].progress, 'progress must increase');
    }
    assert.match(progress.at(-1).message, /stdout \d+ lines/);
  } finally {
    await client.close();
  }
});

test('without progress the same call times out, as the client was told', async () => {
  const client = await connect();
  try {
    await assert.rejects(
      client.callTool({ name: 'exec', arguments: { command: sixSeconds } }, undefined, { timeout: 2000 }),
      /timed out/i,
    );
  } finally {
    await client.close();
  }
});

test('a background server is waited for with a pattern, then killed', async () => {
  const client = await connect();
  try {
    const started = await client.callTool({ name: 'exec', arguments: {
      command: 'echo booting; sleep 0.3; echo "listening on :4000"; sleep 60', background: true } });
    const id = started.structuredContent.process;
    assert.ok(id, 'exec gave no process id');
    const waited = await client.callTool({ name: 'process_wait', arguments: { id, until: { pattern: 'listening on :\\d+' } } });
    assert.equal(waited.structuredContent.reason, 'pattern');
    assert.match(waited.content[0].text, /listening on :4000/);
    const killed = await client.callTool({ name: 'process_kill', arguments: { id } });
    assert.equal(killed.structuredContent.running, false);
  } finally {
    await client.close();
  }
});

// toold mcp through a real agent: Claude Code (pinned in package.json), run
// non-interactively (claude -p) with toold mcp as its MCP server, against a
// local stand-in for the Anthropic Messages API (standin.mjs) that asks for
// one exec and records the tool_result Claude Code then sends its model.
// What the model reads must be toold's rendered text, whole: not the JSON
// result, not a file Claude Code saved a long result to, at most 24 KB.
//
//   cd tests/e2e && npm ci && cd claude && npm ci && TOOLD_BIN=/path/to/toold npm test
//
// It runs offline: Claude Code's only requests go to the stand-in
// (CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, no updater, no telemetry).

import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startStandIn } from './standin.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOOLD_BIN = path.resolve(here, process.env.TOOLD_BIN || '../../../toold');
const CLAUDE_BIN = path.join(here, 'node_modules', '.bin', 'claude');
const BUDGET = 24 * 1024;
const TOOL = 'mcp__toold__exec';

const tmpDirs = [];
function tempDir() {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toold-claude-e2e-')));
  tmpDirs.push(d);
  return d;
}
after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const build = 'for i in $(seq 1 3000); do if [ $i = 1500 ]; then echo "src/main.c:12:5: error: \'foo\' undeclared (first use in this function)"; '
  + 'else echo "[$i/3000] compiling pkg/mod$i/file.c"; fi; done; exit 2';
const buildError = "src/main.c:12:5: error: 'foo' undeclared (first use in this function)";

// claude runs one turn of Claude Code in a home of its own, with toold mcp
// as its only MCP server, and resolves to its exit code and output.
async function claude(home, baseURL) {
  const config = path.join(home, 'mcp.json');
  fs.writeFileSync(config, JSON.stringify({
    mcpServers: { toold: { command: TOOLD_BIN, args: ['mcp', '--spool-root', path.join(home, 'spool')] } },
  }));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    ANTHROPIC_BASE_URL: baseURL,
    ANTHROPIC_API_KEY: 'sk-ant-standin',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // MCP tools in the request itself, as a first-party host gets them,
    // rather than behind the tool-search tool a stand-in cannot answer.
    ENABLE_TOOL_SEARCH: 'false',
  };
  const args = ['-p', 'Run the build and tell me what failed.', '--mcp-config', config, '--strict-mcp-config',
    '--allowedTools', TOOL, '--output-format', 'json', '--model', 'claude-sonnet-4-5', '--no-session-persistence'];
  const p = spawn(CLAUDE_BIN, args, { env, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (b) => { stdout += b; });
  p.stderr.on('data', (b) => { stderr += b; });
  const timer = setTimeout(() => p.kill('SIGKILL'), 120000);
  const code = await new Promise((r) => p.on('exit', r));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

// mcpText is the text the official MCP client gets for the same call.
async function mcpText(command) {
  const transport = new StdioClientTransport({ command: TOOLD_BIN, args: ['mcp', '--spool-root', path.join(tempDir(), 'spool')], stderr: 'ignore' });
  const client = new Client({ name: 'reference', version: '1' });
  await client.connect(transport);
  try {
    const res = await client.callTool({ name: 'exec', arguments: { command } });
    return res.content.map((c) => c.text).join('\n');
  } finally {
    await client.close();
  }
}

// sameText compares two renderings of one command's output: only the spool
// ids (random per session) differ.
const noSpool = (s) => s.replace(/spool=[0-9a-f]+/g, 'spool=ID');

describe('Claude Code reads toold\'s text, once and whole', () => {
  for (const [name, command, check] of [
    ['a 3,000-line build with one error in the middle', build,
      (t) => t.startsWith('exit status 2\n--- stdout ---\n') && t.includes(buildError)],
    ['seq 1 1000000', 'seq 1 1000000',
      (t) => t.startsWith('exit status 0\n--- stdout ---\n1\n2\n') && t.includes('\n1000000\n')],
  ]) {
    test(name, async () => {
      const standin = await startStandIn({ tool: TOOL, input: { command } });
      try {
        const home = tempDir();
        const run = await claude(home, standin.url);
        assert.equal(run.code, 0, `claude exited ${run.code}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}`);
        const offered = standin.requests.find((r) => (r.body?.tools ?? []).some((t) => t.name === TOOL));
        assert.ok(offered, `no request offered ${TOOL}: ${JSON.stringify(standin.requests.map((r) => r.url))}`);
        assert.equal(standin.toolResults.length, 1, 'one tool_result reached the model');
        const [result] = standin.toolResults;
        assert.notEqual(result.is_error, true, JSON.stringify(result).slice(0, 2000));
        const blocks = typeof result.content === 'string' ? [{ type: 'text', text: result.content }] : result.content;
        // toold's text is the first block; Claude Code may append reminders of its own.
        const text = blocks[0]?.text ?? '';
        const bytes = Buffer.byteLength(text);
        test.diagnostic?.(`${name}: the model read ${bytes} bytes in ${blocks.length} block(s)`);
        console.log(`# ${name}: the model read ${bytes} bytes of toold's text (${blocks.length} content blocks)`);
        assert.ok(check(text), `the model read:\n${text.slice(0, 3000)}`);
        assert.ok(bytes <= BUDGET, `${bytes} bytes`);
        assert.ok(!/^\s*[{[]/.test(text), 'the rendered text, not JSON');
        assert.doesNotMatch(text, /"exitCode"|"stdout":/);
        assert.doesNotMatch(JSON.stringify(blocks), /saved to|tool-results|too large/i, 'not set aside in a file');
        // Claude Code ends the text with a newline of its own.
        const want = noSpool(await mcpText(command));
        assert.ok(noSpool(text).trimEnd() === want, `whole: the text toold renders, as the MCP client gets it; `
          + `they differ from byte ${[...want].findIndex((c, i) => c !== noSpool(text)[i])}: ${JSON.stringify(noSpool(text).slice(-200))} vs ${JSON.stringify(want.slice(-200))}`);
      } finally {
        await standin.close();
      }
    });
  }
});

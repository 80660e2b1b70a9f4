// MCP end-to-end test: official MCP TypeScript clients (@modelcontextprotocol/sdk)
// and the MCP Inspector CLI drive the built toold binary as agents do.
//
//   cd tests/e2e && npm ci && TOOLD_BIN=/path/to/toold npm test
//
// Every daemon here lives in a temporary runtime directory (TOOLD_RUNTIME_DIR) or
// on a temporary socket, so the tests never touch the user's own shared daemon.

import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOOLD_BIN = path.resolve(here, process.env.TOOLD_BIN || '../../toold');
const REPO = path.resolve(here, '../..');
const run = promisify(execFile);

const tmpDirs = [];
function tempDir() {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toold-mcp-e2e-')));
  tmpDirs.push(d);
  return d;
}
after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

// connect spawns `toold ARGS` as an MCP client's server and connects to it.
async function connect(name, args, env = {}, capabilities = {}, cwd = undefined) {
  const transport = new StdioClientTransport({
    command: TOOLD_BIN,
    args,
    cwd,
    env: { ...process.env, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (b) => { stderr += b; });
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  client.stderrText = () => stderr;
  return client;
}

// text is a tool result's text, with the structured result alongside.
async function callTool(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  const text = res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  return { res, text, data: res.structuredContent };
}

// tooldProcesses lists the pids of toold daemons whose command line names dir.
function tooldProcesses(dir) {
  const pids = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    let cmd;
    try { cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0'); } catch { continue; }
    if (cmd[0] === TOOLD_BIN && cmd.includes('--listen') && cmd.some((a) => a.startsWith(dir))) pids.push(Number(p));
  }
  return pids;
}

async function waitUntil(what, cond, ms = 10000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('toold mcp --remote=auto: two MCP clients share one daemon', () => {
  const runtime = tempDir();
  const env = { TOOLD_RUNTIME_DIR: runtime };
  const work = tempDir();
  const file = path.join(work, 'shared.txt');
  fs.writeFileSync(file, Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  const clients = [];
  after(async () => {
    for (const c of clients) await c.close();
    await run(TOOLD_BIN, ['stop'], { env: { ...process.env, ...env } }).catch(() => {});
  });

  test('one daemon, two sessions, and the second client hits the first one\'s cache', async () => {
    const a = await connect('agent-a', ['mcp', '--remote=auto', '--structured'], env);
    clients.push(a);
    const ra = await callTool(a, 'read', { path: file, offset: 4000, limit: 3 });
    assert.equal(ra.res.isError, undefined, ra.text);
    assert.equal(ra.text, `  4000\tline 4000\n  4001\tline 4001\n  4002\tline 4002\n[Showing lines 4000-4002 of 5000. Use offset=4003 to continue]`);

    const b = await connect('agent-b', ['mcp', '--remote=auto', '--structured'], env);
    clients.push(b);
    const before = (await callTool(b, 'stats', {})).data;
    const rb = await callTool(b, 'read', { path: file, offset: 4999 });
    assert.equal(rb.data.content, 'line 4999\nline 5000\n');
    const st = (await callTool(b, 'stats', {})).data;
    assert.equal(st.sessions, 2, JSON.stringify(st));
    // A tool call is one daemon read (the daemon fits the window to the
    // budget), and it hits the index the first client's read built.
    assert.equal(st.cache.hits, before.cache.hits + 1, `the second client's read is a cache hit: ${JSON.stringify([before, st])}`);
    assert.equal(st.cache.misses, before.cache.misses, 'and not a miss');

    const daemons = tooldProcesses(runtime);
    assert.equal(daemons.length, 1, `one daemon process, got ${daemons}`);
    const socks = fs.readdirSync(path.join(runtime, `toold-${process.getuid()}`)).filter((n) => n.endsWith('.sock'));
    assert.equal(socks.length, 1, `one socket: ${socks}`);
    const { stdout } = await run(TOOLD_BIN, ['status', '--json'], { env: { ...process.env, ...env } });
    const status = JSON.parse(stdout);
    assert.equal(status.pid, daemons[0]);
    assert.equal(status.sessions, 2);
  });

  test('an MCP session that ends is a daemon session cleaned up', async () => {
    const [a, b] = clients;
    const ex = await callTool(a, 'exec', { command: 'seq 1 50000', maxLines: 4 });
    const spoolPath = ex.data.stdout.spool.path;
    assert.ok(fs.existsSync(spoolPath), spoolPath);
    assert.match(ex.text, /page spool=\w+ offset=3 to read them/);
    const page = await callTool(a, 'page', { spool: ex.data.stdout.spool.id, offset: 3, limit: 2 });
    assert.equal(page.text, '     3\t3\n     4\t4\n[Showing lines 3-4 of 50000. Use offset=5 to continue]');
    await a.close();
    clients.shift();
    await waitUntil('a\'s session to close', async () => (await callTool(b, 'stats', {})).data.sessions === 1);
    assert.ok(!fs.existsSync(spoolPath), 'the spool of the closed session is gone');
  });
});

describe('a large file read with no range', () => {
  test('the official client\'s read of a 300 KB file gets its outline and first lines', async () => {
    const work = tempDir();
    const file = path.join(work, 'big.py');
    const parts = [];
    for (let i = 0; parts.join('').length < 300 * 1024; i++) {
      parts.push(`class Handler${i}:\n    def handle(self, request):\n` +
        Array.from({ length: 20 }, (_, j) => `        value_${j} = request.get("field_${j}", ${i})\n`).join('') + '\n\n');
    }
    fs.writeFileSync(file, parts.join(''));
    const client = await connect('outline-agent', ['mcp', '--structured'], {}, {}, work);
    try {
      const r = await callTool(client, 'read', { path: file });
      assert.equal(r.res.isError, undefined, r.text);
      const lines = r.text.split('\n');
      assert.match(lines[0], /^1-\d+ (class|block) Handler0:?$/, lines[0]);
      assert.ok(r.text.includes('\n     1\tclass Handler0:\n'), 'the first lines follow the outline');
      assert.match(lines.at(-1), /^\[Outline \((ctags|indent)\) of \d+ lines, 300\.\d KB: .*above are its outline and lines 1-100\. Read the lines you need with read offset=N limit=M/);
      assert.ok(r.text.length < 24 * 1024, `${r.text.length} bytes`);
      const ranged = await callTool(client, 'read', { path: file, offset: 1, limit: 2 });
      assert.equal(ranged.text, '     1\tclass Handler0:\n     2\t    def handle(self, request):\n[Showing lines 1-2 of ' +
        ranged.data.totalLines + '. Use offset=3 to continue]');
    } finally {
      await client.close();
    }
  });
});

describe('toold mcp --remote=SOCKET', () => {
  test('two clients on a daemon the test started', async () => {
    const dir = tempDir();
    const socket = path.join(dir, 'private', 'toold.sock');
    const daemon = spawn(TOOLD_BIN, ['serve', '--listen', socket, '--spool-root', path.join(dir, 'spool')], { stdio: 'ignore' });
    const exited = new Promise((r) => daemon.on('exit', (code) => r(code)));
    try {
      await waitUntil('the socket', () => fs.existsSync(socket));
      const cwds = [tempDir(), tempDir()];
      cwds.forEach((d, i) => fs.writeFileSync(path.join(d, 'who.txt'), `client ${i}\n`));
      const cs = [];
      for (const [i, cwd] of cwds.entries()) cs.push(await connect(`c${i}`, ['mcp', `--remote=${socket}`, '--structured'], {}, {}, cwd));
      assert.equal((await callTool(cs[0], 'stats', {})).data.sessions, 2);
      // Each session works in its own client's cwd, though both run on one daemon.
      for (const [i, c] of cs.entries()) {
        const r = await callTool(c, 'read', { path: 'who.txt' });
        assert.equal(r.data.path, path.join(cwds[i], 'who.txt'));
        assert.equal(r.text, `     1\tclient ${i}`);
      }
      for (const c of cs) await c.close();
    } finally {
      daemon.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  });

  test('no daemon on the socket: the client is told why', async () => {
    const dir = tempDir();
    const c = new StdioClientTransport({ command: TOOLD_BIN, args: ['mcp', `--remote=${path.join(dir, 'none.sock')}`], stderr: 'pipe' });
    let stderr = '';
    c.stderr?.on('data', (b) => { stderr += b; });
    const client = new Client({ name: 'x', version: '1' });
    await assert.rejects(client.connect(c));
    await waitUntil('the error on stderr', () => stderr.includes('no daemon answers on'));
  });
});

describe('roots', () => {
  test('toold mcp --root DIR: reading outside it is refused', async () => {
    const inside = tempDir();
    const outside = tempDir();
    fs.writeFileSync(path.join(inside, 'in.txt'), 'in\n');
    fs.writeFileSync(path.join(outside, 'out.txt'), 'out\n');
    const c = await connect('rooted', ['mcp', '--root', inside, '--spool-root', path.join(tempDir(), 'spool')]);
    try {
      assert.equal((await callTool(c, 'read', { path: path.join(inside, 'in.txt') })).text, '     1\tin');
      const out = await callTool(c, 'read', { path: path.join(outside, 'out.txt') });
      assert.equal(out.res.isError, true);
      assert.match(out.text, /^error -32002: /);
      const esc = await callTool(c, 'read', { path: path.join(inside, '..', path.basename(outside), 'out.txt') });
      assert.equal(esc.res.isError, true);
    } finally {
      await c.close();
    }
  });
});

describe('outputSchema', () => {
  test('with --structured every tool has one, and the SDK client checks each result against it', async () => {
    const c = await connect('schema-checker', ['mcp', '--structured', '--spool-root', path.join(tempDir(), 'spool')]);
    try {
      const { tools } = await c.listTools(); // the SDK keeps a validator per outputSchema from here on
      for (const t of tools) assert.equal(t.outputSchema?.type, 'object', t.name);
      const file = path.join(REPO, 'go.mod');
      const ex = await callTool(c, 'exec', { command: 'seq 1 5000; echo "error: x" >&2', maxLines: 6 });
      const results = [
        await callTool(c, 'read', { path: file, limit: 2 }),
        await callTool(c, 'read', { path: file, offset: 1e6 }),
        await callTool(c, 'readBytes', { path: file, startByte: 3, maxBytes: 2 }),
        ex,
        await callTool(c, 'page', { spool: ex.data.stdout.spool.id, offset: 4, limit: 3 }),
        await callTool(c, 'stats', {}),
      ];
      for (const r of results) assert.ok(r.data && !r.res.isError, r.text);
      // An error has no structuredContent to check.
      const err = await callTool(c, 'read', { path: '/nonexistent' });
      assert.equal(err.res.isError, true);
      assert.equal(err.data, undefined);
    } finally {
      await c.close();
    }
  });
});

describe('roots the client announces', () => {
  test('become the session\'s roots, and follow the client\'s changes', async () => {
    const inside = tempDir();
    const outside = tempDir();
    fs.writeFileSync(path.join(inside, 'in.txt'), 'in\n');
    fs.writeFileSync(path.join(outside, 'out.txt'), 'out\n');
    const runtime = tempDir();
    const env = { TOOLD_RUNTIME_DIR: runtime };
    let roots = [{ uri: `file://${inside}`, name: 'project' }];
    const transport = new StdioClientTransport({ command: TOOLD_BIN, args: ['mcp', '--remote=auto', '--structured'], env: { ...process.env, ...env }, stderr: 'pipe' });
    const c = new Client({ name: 'rooted-client', version: '1' }, { capabilities: { roots: { listChanged: true } } });
    let asked = 0;
    c.setRequestHandler(ListRootsRequestSchema, async () => { asked++; return { roots }; });
    await c.connect(transport);
    try {
      assert.equal((await callTool(c, 'read', { path: path.join(inside, 'in.txt') })).text, '     1\tin');
      const out = await callTool(c, 'read', { path: path.join(outside, 'out.txt') });
      assert.equal(out.res.isError, true, out.text);
      assert.match(out.text, /^error -32002: /);
      // A path that climbs out of the root is refused as well.
      const esc = await callTool(c, 'read', { path: path.join(inside, '..', path.basename(outside), 'out.txt') });
      assert.equal(esc.res.isError, true);
      // exec's spools stay readable: the session's own directory is outside the roots.
      const ex = await callTool(c, 'exec', { command: 'seq 1 10000', maxLines: 4 });
      const page = await callTool(c, 'page', { spool: ex.data.stdout.spool.id, offset: 3, limit: 1 });
      assert.equal(page.res.isError, undefined, page.text);

      roots = [{ uri: `file://${outside}` }];
      await c.sendRootsListChanged();
      await waitUntil('the new roots', async () => !(await callTool(c, 'read', { path: path.join(outside, 'out.txt') })).res.isError);
      assert.equal((await callTool(c, 'read', { path: path.join(inside, 'in.txt') })).res.isError, true);
      assert.ok(asked >= 2, `roots/list asked ${asked} times`);
    } finally {
      await c.close();
      await run(TOOLD_BIN, ['stop'], { env: { ...process.env, ...env } }).catch(() => {});
    }
  });
});

describe('MCP Inspector CLI', () => {
  const inspector = path.join(here, 'node_modules', '.bin', 'mcp-inspector');
  const spool = path.join(tempDir(), 'spool');
  const inspect = async (...args) => {
    const { stdout } = await run(inspector, ['--cli', TOOLD_BIN, 'mcp', '--structured', '--spool-root', spool, ...args], { cwd: REPO, timeout: 60000 });
    return JSON.parse(stdout);
  };

  test('lists the tools, with their annotations', async () => {
    const { tools } = await inspect('--method', 'tools/list');
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(byName).sort(), ['exec', 'find', 'grep', 'ls', 'page', 'process_kill', 'process_list',
      'process_read', 'process_wait', 'process_write', 'read', 'readBytes', 'stats']);
    for (const n of ['read', 'readBytes', 'page', 'stats', 'grep', 'find', 'ls', 'process_read', 'process_list']) {
      assert.equal(byName[n].annotations.readOnlyHint, true, n);
    }
    for (const n of ['process_write', 'process_kill']) assert.equal(byName[n].annotations.destructiveHint, true, n);
    assert.deepEqual(byName.grep.inputSchema.required, ['pattern']);
    assert.deepEqual(byName.process_write.inputSchema.required, ['id', 'stdin']);
    assert.equal(byName.exec.annotations.readOnlyHint, false);
    assert.equal(byName.exec.annotations.destructiveHint, true);
    assert.deepEqual(byName.read.inputSchema.required, ['path']);
  });

  test('calls read on a file of the repository', async () => {
    const res = await inspect('--method', 'tools/call', '--tool-name', 'read', '--tool-arg', 'path=go.mod', '--tool-arg', 'limit=1');
    assert.equal(res.isError, undefined);
    assert.equal(res.content[0].text, '     1\tmodule github.com/toold/toold\n[Showing lines 1-1 of ' + res.structuredContent.totalLines + '. Use offset=2 to continue]');
    assert.equal(res.structuredContent.path, path.join(REPO, 'go.mod'));
  });
});

// The text a model reads, once and whole: by default no outputSchema and no
// structuredContent (clients give the model one in place of the other, or
// both), and at the default limits at most 24 KB of text whatever the output.
describe('toold mcp by default: the text, once, whole', () => {
  const BUDGET = 24 * 1024;
  const build = 'for i in $(seq 1 3000); do if [ $i = 1500 ]; then echo "src/main.c:12:5: error: \'foo\' undeclared (first use in this function)"; '
    + 'else echo "[$i/3000] compiling pkg/mod$i/file.c"; fi; done; exit 2';
  for (const remote of [false, true]) {
    test(remote ? 'with --remote=auto' : 'daemon in process', async () => {
      const runtime = tempDir();
      const env = { TOOLD_RUNTIME_DIR: runtime };
      const args = remote ? ['mcp', '--remote=auto'] : ['mcp', '--spool-root', path.join(tempDir(), 'spool')];
      const c = await connect('text-only', args, env);
      try {
        const { tools } = await c.listTools();
        for (const t of tools) assert.equal(t.outputSchema, undefined, t.name);
        const work = tempDir();
        const big = path.join(work, 'big.log');
        fs.writeFileSync(big, Array.from({ length: 120000 }, (_, i) => `line ${i} of a five megabyte log, needle ${i % 7}`).join('\n') + '\n');
        const json = `printf '{"data":"'; head -c 3000000 /dev/zero | tr '\\0' x; printf '"}\\n'`;
        const cases = [
          ['exec', { command: build }, (t) => t.includes("src/main.c:12:5: error: 'foo' undeclared") && t.startsWith('exit status 2\n')],
          ['exec', { command: 'seq 1 1000000' }, (t) => t.includes('\n1000000\n') && t.includes('omitted')],
          ['exec', { command: 'seq 1 1000000; seq 1 1000000 >&2' }, (t) => t.includes('--- stderr ---')],
          ['exec', { command: json }, (t) => t.includes('{"data":"xxx')],
          ['read', { path: big }, (t) => t.includes('\n     1\tline 0 of') && t.includes('offset=')],
          ['grep', { pattern: 'needle 3', path: big }, (t) => t.includes('needle 3')],
        ];
        for (const [name, a, ok] of cases) {
          const r = await callTool(c, name, a);
          assert.equal(r.res.isError, undefined, r.text);
          assert.equal(r.data, undefined, `${name}: no structuredContent`);
          assert.equal(r.res.content.length, 1);
          assert.ok(Buffer.byteLength(r.text) <= BUDGET, `${name} ${JSON.stringify(a).slice(0, 80)}: ${Buffer.byteLength(r.text)} bytes`);
          assert.ok(ok(r.text), `${name} ${JSON.stringify(a).slice(0, 80)}:\n${r.text.slice(0, 3000)}`);
        }
        // A call that asks for more gets more.
        const more = await callTool(c, 'exec', { command: "seq -f 'line %07g of output, forty bytes long' 1 100000", maxBytes: 65536 });
        assert.ok(Buffer.byteLength(more.text) > BUDGET, `${Buffer.byteLength(more.text)} bytes`);
      } finally {
        await c.close();
        if (remote) await run(TOOLD_BIN, ['stop'], { env: { ...process.env, ...env } }).catch(() => {});
      }
    });
  }
});

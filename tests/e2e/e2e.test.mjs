// Editor-side end-to-end test: drives the built toold binary over stdio the way a
// VS Code extension would, with vscode-jsonrpc and Content-Length framing.
//
//   cd tests/e2e && npm ci && TOOLD_BIN=/path/to/toold npm test
//
// TOOLD_BIN defaults to ../../toold relative to this file (the repo root's `toold`,
// as built by `go build -o toold ./cmd/toold`).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  CancellationTokenSource,
  ResponseError,
} from 'vscode-jsonrpc/node.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOOLD_BIN = path.resolve(here, process.env.TOOLD_BIN || '../../toold');
const CALL_TIMEOUT_MS = 5000;

// ---------------------------------------------------------------------------
// The daemon and the connection, shared by the ordered tests below.

let child;          // the toold process
let conn;           // the vscode-jsonrpc MessageConnection
let exited;         // Promise<{code, signal}> resolved when the process ends
let exitInfo = null;
let stderrTail = '';
let tmp;            // realpath of the session's temp dir (cwd and only root)
let outsideDir;     // a second temp dir, outside the roots
let spoolDir;

function daemonLog() {
  const tail = stderrTail.slice(-4000);
  return tail ? `\n--- toold stderr (tail) ---\n${tail}\n---------------------------` : '';
}

// Rejects after ms, or at once if the daemon has died, so that no test hangs.
function guard(promise, what, ms = CALL_TIMEOUT_MS) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no reply within ${ms} ms${daemonLog()}`)), ms);
  });
  const died = exited.then((info) => {
    throw new Error(`${what}: toold exited (code ${info.code}, signal ${info.signal}) before replying${daemonLog()}`);
  });
  return Promise.race([promise, timeout, died]).finally(() => clearTimeout(timer));
}

function call(method, params, token, ms) {
  // No params argument at all for a request without params: vscode-jsonrpc would
  // send a lone null as [null].
  const args = [method];
  if (params !== undefined) args.push(params);
  if (token !== undefined) args.push(token);
  return guard(conn.sendRequest(...args), `${method} ${JSON.stringify(params ?? null).slice(0, 200)}`, ms);
}

// Expects the request to fail with a JSON-RPC error of the given code; returns the error.
async function callError(method, params, code) {
  let result;
  try {
    result = await call(method, params);
  } catch (err) {
    if (!(err instanceof ResponseError)) throw err;
    assert.equal(err.code, code,
      `${method} ${JSON.stringify(params)}: expected error code ${code}, got ${err.code} (${err.message})`);
    return err;
  }
  assert.fail(`${method} ${JSON.stringify(params)}: expected error ${code}, got a result: ${JSON.stringify(result).slice(0, 500)}`);
}

// Wraps a test body so that a failure carries the daemon's stderr.
function withLog(fn) {
  return async (t) => {
    try {
      await fn(t);
    } catch (err) {
      if (err && typeof err.message === 'string' && !err.message.includes('toold stderr')) {
        err.message += daemonLog();
      }
      throw err;
    }
  };
}

// ---------------------------------------------------------------------------
// The test file: CRLF lines, multi-byte characters, a 10 000-character line, no
// trailing newline.

const LONG_CHARS = 10000;
function makeLongLine() {
  // Mostly ASCII with 2-, 3- and 4-byte characters throughout, so that byte windows
  // and clipping must respect character boundaries.
  const unit = 'abcdefghijklmnopqrstuvwxyz0123456789 é 日本 🙂 ';
  const cps = [];
  while (cps.length < LONG_CHARS) cps.push(...unit);
  return cps.slice(0, LONG_CHARS).join('');
}
const LONG_LINE = makeLongLine();
const LINES = [
  'first line: plain ASCII',
  'café au lait — é è ê',
  '日本語のテキスト、日本',
  'emoji: 🙂🚀👍🏽 and a family 👨‍👩‍👧',
  '',
  LONG_LINE,
  'after the long line',
  '\tindented with a tab',
  'mixed: naïve façade 日本 🙂',
  'last line, no newline: 終わり',
];
const SAMPLE_TEXT = LINES.join('\r\n');
const SAMPLE = Buffer.from(SAMPLE_TEXT, 'utf8');
const SAMPLE_TOTAL_LINES = LINES.length; // the last line has no \n but counts

// Byte offset at which line n (1-based) starts.
function lineStartByte(n) {
  let off = 0;
  for (let i = 0; i < n - 1; i++) off += Buffer.byteLength(LINES[i] + '\r\n');
  return off;
}
// The text of lines [from, to] as in the file.
function linesText(from, to) {
  let s = '';
  for (let i = from; i <= to; i++) s += LINES[i - 1] + (i < LINES.length ? '\r\n' : '');
  return s;
}

function checkWindowShape(w, what) {
  for (const k of ['path', 'content', 'startLine', 'endLine', 'totalLines', 'startByte',
    'endByte', 'totalBytes', 'truncated', 'next']) {
    assert.ok(k in w, `${what}: window has no field "${k}": ${JSON.stringify(w).slice(0, 300)}`);
  }
  assert.equal(typeof w.content, 'string', `${what}: content is not a string`);
  assert.ok(w.endByte >= w.startByte, `${what}: endByte ${w.endByte} < startByte ${w.startByte}`);
}

// ---------------------------------------------------------------------------

describe('toold over stdio with vscode-jsonrpc (Content-Length framing)', { timeout: 30000 }, () => {
  let samplePath;

  before(() => {
    if (!fs.existsSync(TOOLD_BIN)) {
      throw new Error(`toold binary not found at ${TOOLD_BIN}: build it with ` +
        '`go build -o toold ./cmd/toold` at the repo root, or set TOOLD_BIN');
    }
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toold-e2e-')));
    outsideDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toold-e2e-outside-')));
    samplePath = path.join(tmp, 'sample.txt');

    child = spawn(TOOLD_BIN, [], { cwd: tmp, stdio: ['pipe', 'pipe', 'pipe'] });
    exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => { exitInfo = { code, signal }; resolve(exitInfo); });
      child.on('error', (err) => {
        stderrTail += `\n[spawn error] ${err.message}`;
        exitInfo = { code: null, signal: null, error: err };
        resolve(exitInfo);
      });
    });
    exited.catch(() => {});
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => { stderrTail = (stderrTail + d).slice(-20000); });
    // A closed stdin while the daemon is gone must not crash the test process.
    child.stdin.on('error', () => {});

    conn = createMessageConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    conn.onError(([err]) => { stderrTail += `\n[connection error] ${err?.message ?? err}`; });
    conn.listen();
  });

  after(async () => {
    try { conn?.dispose(); } catch { /* already closed */ }
    if (child && exitInfo === null) {
      child.kill('SIGKILL');
      await exited;
    }
    for (const d of [tmp, outsideDir]) {
      if (d) fs.rmSync(d, { recursive: true, force: true });
    }
  });

  test('1. initialize', withLog(async () => {
    const res = await call('initialize', {
      clientInfo: { name: 'toold-e2e', version: '0.0.0' },
      cwd: tmp,
      roots: [tmp],
    });
    assert.ok(res && typeof res === 'object', `initialize: result is not an object: ${JSON.stringify(res)}`);
    assert.equal(res.serverInfo?.name, 'toold', `initialize: serverInfo.name: ${JSON.stringify(res.serverInfo)}`);
    assert.equal(typeof res.serverInfo.version, 'string', 'initialize: serverInfo.version is not a string');
    const session = typeof res.session === 'object' && res.session !== null ? res.session.id : res.session;
    assert.ok(typeof session === 'string' && session.length > 0, `initialize: no session id: ${JSON.stringify(res.session)}`);
    assert.ok(typeof res.spoolDir === 'string' && path.isAbsolute(res.spoolDir),
      `initialize: spoolDir is not an absolute path: ${JSON.stringify(res.spoolDir)}`);
    spoolDir = res.spoolDir;
    assert.ok(Array.isArray(res.methods), `initialize: methods is not an array: ${JSON.stringify(res.methods)}`);
    for (const m of ['read', 'readBytes', 'exec', 'page']) {
      assert.ok(res.methods.includes(m), `initialize: methods lacks "${m}": ${JSON.stringify(res.methods)}`);
    }
  }));

  test('2. read: CRLF, multi-byte characters, a 10 000-character line, no trailing newline', withLog(async () => {
    fs.writeFileSync(samplePath, SAMPLE);
    const total = SAMPLE.length;

    // Default limits: the whole file fits one window; the long line is clipped at
    // maxLineChars (default 2000), every other line is exact.
    const w = await call('read', { path: samplePath });
    checkWindowShape(w, 'read (defaults)');
    assert.equal(w.path, samplePath, 'read: path');
    assert.equal(w.totalLines, SAMPLE_TOTAL_LINES, 'read: totalLines (a last line without \\n counts)');
    assert.equal(w.totalBytes, total, 'read: totalBytes must be the file size');
    assert.equal(w.startLine, 1, 'read: startLine');
    assert.equal(w.endLine, SAMPLE_TOTAL_LINES, 'read: endLine');
    assert.equal(w.startByte, 0, 'read: startByte');
    assert.equal(w.endByte, total, 'read: endByte');
    assert.equal(w.truncated, false, 'read: truncated');
    assert.equal(w.next, null, 'read: next must be null at the end');
    assert.equal(w.clippedLines, 1, 'read (defaults): the 10 000-character line must be clipped at maxLineChars=2000');
    const got = w.content.split('\r\n');
    assert.equal(got.length, LINES.length, 'read (defaults): content must keep CRLF line endings and every line');
    for (let i = 0; i < LINES.length; i++) {
      if (LINES[i] === LONG_LINE) {
        const clipped = got[i];
        assert.ok(LONG_LINE.startsWith(clipped), 'read (defaults): the clipped line must be a prefix of the line, without markers');
        assert.ok([...clipped].length <= 2000, `read (defaults): clipped line has ${[...clipped].length} characters, more than 2000`);
        assert.ok(Buffer.byteLength(clipped) >= 1997, `read (defaults): clipped line is too short (${Buffer.byteLength(clipped)} bytes)`);
        assert.ok(!clipped.includes('\uFFFD'), 'read (defaults): clipping split a character');
      } else {
        assert.equal(got[i], LINES[i], `read (defaults): line ${i + 1} differs`);
      }
    }

    // Clipping off: content is the file, byte for byte.
    const whole = await call('read', { path: samplePath, maxLineChars: 0 });
    assert.equal(whole.content, SAMPLE_TEXT, 'read maxLineChars=0: content must equal the file exactly');
    assert.equal(whole.clippedLines ?? 0, 0, 'read maxLineChars=0: clippedLines');
    assert.equal(whole.truncated, false, 'read maxLineChars=0: truncated');
    assert.equal(whole.next, null, 'read maxLineChars=0: next');
    assert.equal(whole.notice ?? null, null, `read maxLineChars=0: nothing to say, but notice is ${JSON.stringify(whole.notice)}`);

    // A path relative to the session cwd.
    const rel = await call('read', { path: 'sample.txt', maxLineChars: 0 });
    assert.equal(rel.content, SAMPLE_TEXT, 'read of a relative path: content');
    assert.equal(rel.path, samplePath, 'read of a relative path: path must be the absolute path read');

    // Paging by offset/limit.
    const p = await call('read', { path: samplePath, offset: 2, limit: 3 });
    checkWindowShape(p, 'read offset=2 limit=3');
    assert.equal(p.startLine, 2, 'read offset=2 limit=3: startLine');
    assert.equal(p.endLine, 4, 'read offset=2 limit=3: endLine');
    assert.equal(p.content, linesText(2, 4), 'read offset=2 limit=3: content');
    assert.equal(p.startByte, lineStartByte(2), 'read offset=2 limit=3: startByte');
    assert.equal(p.endByte, lineStartByte(5), 'read offset=2 limit=3: endByte');
    assert.equal(p.totalLines, SAMPLE_TOTAL_LINES, 'read offset=2 limit=3: totalLines');
    assert.equal(p.truncated, true, 'read offset=2 limit=3: truncated');
    assert.equal(p.truncatedBy, 'lines', 'read offset=2 limit=3: truncatedBy');
    assert.deepEqual(p.next, { offset: 5 }, 'read offset=2 limit=3: next');
    assert.equal(typeof p.notice, 'string', 'read offset=2 limit=3: a truncated window must have a notice');
    assert.match(p.notice, /offset=5\b/, `read offset=2 limit=3: notice must say how to continue (offset=5): ${p.notice}`);
    assert.match(p.notice, /\b2\s*-\s*4\b/, `read offset=2 limit=3: notice must name the lines shown (2-4): ${p.notice}`);
    assert.ok(p.notice.includes(String(SAMPLE_TOTAL_LINES)), `read offset=2 limit=3: notice must give the total (${SAMPLE_TOTAL_LINES}): ${p.notice}`);
    assert.ok(!p.notice.includes('\n'), 'read: a notice is one line');

    // Follow next.offset to the end, a page of 3 lines at a time.
    let offset = 1;
    let text = '';
    for (let i = 0; i < 10 && offset !== null; i++) {
      const page = await call('read', { path: samplePath, offset, limit: 3, maxLineChars: 0 });
      assert.equal(page.startLine, offset, `read paging: startLine at offset ${offset}`);
      text += page.content;
      offset = page.next === null ? null : page.next.offset;
      if (offset !== null) assert.equal(offset, page.endLine + 1, 'read paging: next.offset = endLine + 1');
      else assert.equal(page.truncated, false, 'read paging: last page not truncated');
    }
    assert.equal(offset, null, 'read paging: never reached the end');
    assert.equal(text, SAMPLE_TEXT, 'read paging: pages concatenated must give the file');

    // Past the end: an empty window and a notice with the line count.
    const past = await call('read', { path: samplePath, offset: 1000 });
    assert.equal(past.content, '', 'read past the end: content');
    assert.equal(past.endLine, past.startLine - 1, 'read past the end: endLine = startLine - 1');
    assert.equal(past.truncated, false, 'read past the end: truncated');
    assert.equal(past.next, null, 'read past the end: next');
    assert.ok(typeof past.notice === 'string' && past.notice.includes(String(SAMPLE_TOTAL_LINES)),
      `read past the end: notice must say how many lines the file has: ${past.notice}`);
  }));

  test('3. readBytes walk with maxBytes=100 gives the file back', withLog(async () => {
    let startByte = 0;
    let prevEnd = 0;
    const parts = [];
    let steps = 0;
    const maxSteps = SAMPLE.length; // every step must move forward by at least a byte
    for (;;) {
      assert.ok(steps++ < maxSteps, `readBytes walk: no end after ${maxSteps} steps`);
      const w = await call('readBytes', { path: samplePath, startByte, maxBytes: 100 });
      const what = `readBytes startByte=${startByte}`;
      checkWindowShape(w, what);
      assert.equal(w.totalBytes, SAMPLE.length, `${what}: totalBytes`);
      assert.equal(w.startByte, prevEnd, `${what}: window startByte ${w.startByte} must equal the previous endByte ${prevEnd}`);
      assert.ok(w.endByte > w.startByte, `${what}: empty window before the end (no progress)`);
      assert.ok(w.endByte - w.startByte <= 100,
        `${what}: window [${w.startByte}, ${w.endByte}) is longer than maxBytes=100 (every line here but the long one fits)`);
      assert.equal(Buffer.byteLength(w.content), w.endByte - w.startByte,
        `${what}: content is ${Buffer.byteLength(w.content)} bytes but covers [${w.startByte}, ${w.endByte})`);
      assert.equal(w.content, SAMPLE.subarray(w.startByte, w.endByte).toString('utf8'),
        `${what}: content must be the file's bytes [${w.startByte}, ${w.endByte})`);
      parts.push(w.content);
      prevEnd = w.endByte;
      if (w.next === null) {
        assert.equal(w.endByte, SAMPLE.length, `${what}: next is null before the end of the file`);
        assert.equal(w.truncated, false, `${what}: last window must not be truncated`);
        break;
      }
      assert.equal(typeof w.next.startByte, 'number', `${what}: next.startByte missing: ${JSON.stringify(w.next)}`);
      assert.ok(w.next.startByte > startByte, `${what}: next.startByte ${w.next.startByte} does not move forward`);
      assert.equal(w.next.startByte, w.endByte, `${what}: next.startByte must be endByte`);
      startByte = w.next.startByte;
    }
    assert.ok(parts.length > LONG_CHARS / 100, `readBytes walk: only ${parts.length} windows; the long line must be sliced`);
    assert.equal(parts.join(''), SAMPLE_TEXT, 'readBytes walk: windows concatenated must equal the file exactly');
  }));

  test('4. bad input gets the right error and the session goes on', withLog(async () => {
    const goodRead = async (after) => {
      const w = await call('read', { path: samplePath, limit: 1 });
      assert.equal(w.content, LINES[0] + '\r\n', `a good read after ${after} must still work`);
    };

    const missing = path.join(tmp, 'no-such-file.txt');
    let err = await callError('read', { path: missing }, -32001);
    assert.ok(err.data && typeof err.data.path === 'string', `missing file: error.data.path missing: ${JSON.stringify(err.data)}`);
    assert.ok(err.data.path.endsWith('no-such-file.txt'), `missing file: error.data.path: ${err.data.path}`);
    await goodRead('a missing file');

    fs.mkdirSync(path.join(tmp, 'subdir'), { recursive: true });
    err = await callError('read', { path: path.join(tmp, 'subdir') }, -32003);
    await goodRead('a directory');

    const outside = fs.existsSync('/etc/hostname') ? '/etc/hostname' : '/etc/passwd';
    await callError('read', { path: outside }, -32002);
    await goodRead(`a path outside the roots (${outside})`);

    const outsideFile = path.join(outsideDir, 'secret.txt');
    fs.writeFileSync(outsideFile, 'outside the roots\n');
    await callError('readBytes', { path: outsideFile }, -32002);
    fs.symlinkSync(outsideFile, path.join(tmp, 'link-out.txt'));
    await callError('read', { path: path.join(tmp, 'link-out.txt') }, -32002);
    await goodRead('a symlink that leads outside the roots');

    err = await callError('read', { path: samplePath, offset: -1 }, -32602);
    assert.match(err.message, /offset/, `negative offset: the message must name "offset": ${err.message}`);
    await goodRead('a negative offset');

    err = await callError('read', { path: samplePath, maxBytes: -5 }, -32602);
    assert.match(err.message, /maxBytes/, `negative maxBytes: the message must name "maxBytes": ${err.message}`);

    await callError('no/suchMethod', { x: 1 }, -32601);
    await goodRead('an unknown method');
  }));

  test('5. exec seq 1 5000 is truncated and its spool pages', withLog(async () => {
    const r = await call('exec', { command: 'seq 1 5000' }, undefined, 15000);
    assert.equal(r.exitCode, 0, `exec seq: exitCode: ${JSON.stringify(r).slice(0, 500)}`);
    const out = r.stdout;
    assert.ok(out && typeof out === 'object', 'exec seq: no stdout stream');
    const expected = Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join('');
    assert.equal(out.totalLines, 5000, 'exec seq: stdout.totalLines');
    assert.equal(out.totalBytes, Buffer.byteLength(expected), 'exec seq: stdout.totalBytes');
    assert.equal(out.truncated, true, 'exec seq: stdout.truncated');
    assert.ok(out.omitted && typeof out.omitted.fromLine === 'number' && typeof out.omitted.toLine === 'number',
      `exec seq: stdout.omitted: ${JSON.stringify(out.omitted)}`);
    assert.ok(out.spool && typeof out.spool.id === 'string' && out.spool.id.length > 0,
      `exec seq: stdout.spool.id: ${JSON.stringify(out.spool)}`);
    assert.ok(out.head.startsWith('1\n2\n'), 'exec seq: head must start at line 1');
    assert.ok(out.tail.endsWith('4999\n5000\n'), 'exec seq: tail must end at line 5000');
    const { fromLine, toLine } = out.omitted;
    const headLines = out.head.split('\n').length - 1;
    assert.equal(fromLine, headLines + 1, 'exec seq: omitted.fromLine must follow head');
    assert.equal(out.tail.split('\n').length - 1, 5000 - toLine, 'exec seq: tail must follow omitted.toLine');
    assert.equal(out.shownLines, headLines + 5000 - toLine, 'exec seq: shownLines');
    if (spoolDir && typeof out.spool.path === 'string') {
      assert.ok(out.spool.path.startsWith(spoolDir), `exec seq: spool ${out.spool.path} is not under spoolDir ${spoolDir}`);
    }

    const page = await call('page', { spool: out.spool.id, offset: fromLine, limit: 10 });
    checkWindowShape(page, 'page');
    const want = Array.from({ length: 10 }, (_, i) => `${fromLine + i}\n`).join('');
    assert.equal(page.content, want, `page offset=${fromLine} limit=10: content`);
    assert.equal(page.startLine, fromLine, 'page: startLine');
    assert.equal(page.endLine, fromLine + 9, 'page: endLine');
    assert.equal(page.totalLines, 5000, 'page: totalLines');
    assert.equal(page.truncated, true, 'page: truncated');
    assert.deepEqual(page.next, { offset: fromLine + 10 }, 'page: next');

    // The session's spool is readable by read whatever the roots.
    if (typeof out.spool.path === 'string') {
      const w = await call('read', { path: out.spool.path, offset: 4999 });
      assert.equal(w.content, '4999\n5000\n', 'read of the session spool file (outside the roots) must work');
    }

    await callError('page', { spool: 'no-such-spool', offset: 1 }, -32001);

    // grep of the spool: its line numbers are page's.
    const g = await call('grep', { spool: out.spool.id, pattern: '^432[0-9]$', context: 1, limit: 3 });
    assert.equal(g.limitReached, 'matches', `grep spool: limitReached: ${JSON.stringify(g).slice(0, 500)}`);
    assert.equal(g.files.length, 1, 'grep spool: one file');
    assert.equal(g.files[0].count, 10, 'grep spool: count of matching lines');
    assert.deepEqual(g.files[0].matches.map((m) => [m.line, m.text]), [[4320, '4320'], [4321, '4321'], [4322, '4322']],
      'grep spool: line numbers and texts');
    assert.deepEqual(g.files[0].matches[0].before, ['4319'], 'grep spool: context before');
    assert.equal(g.notice, '[3 matches limit reached. Use limit=6 for more, or refine pattern]', 'grep spool: notice');
    await callError('grep', { pattern: '(' }, -32602);
  }));

  test('6. $/cancelRequest ends a running exec within seconds; reads go on meanwhile', withLog(async () => {
    const source = new CancellationTokenSource();
    const started = Date.now();
    const pending = call('exec', { command: 'sleep 30' }, source.token, 15000);
    pending.catch(() => {}); // observed below

    await new Promise((r) => setTimeout(r, 300));
    // A long exec never delays a read of the same client.
    const t0 = Date.now();
    const w = await call('read', { path: samplePath, limit: 1 }, undefined, 2000);
    assert.equal(w.startLine, 1, 'read during a running exec');
    assert.ok(Date.now() - t0 < 2000, 'a read during a running exec took too long');

    const cancelledAt = Date.now();
    source.cancel(); // vscode-jsonrpc sends $/cancelRequest {id}
    let res;
    try {
      res = await pending;
    } catch (err) {
      if (!(err instanceof ResponseError)) throw err;
      assert.equal(err.code, -32800, `cancelled exec: expected a result with cancelled or error -32800, got ${err.code} ${err.message}`);
    }
    const took = Date.now() - cancelledAt;
    assert.ok(took < 5000, `cancelled exec: the reply came ${took} ms after $/cancelRequest`);
    assert.ok(Date.now() - started < 10000, 'cancelled exec: sleep 30 was not ended');
    if (res !== undefined) {
      assert.equal(res.cancelled, true, `cancelled exec: result.cancelled: ${JSON.stringify(res).slice(0, 500)}`);
      assert.notEqual(res.exitCode, 0, 'cancelled exec: exitCode must not be 0');
    }
    source.dispose();
    await call('read', { path: samplePath, limit: 1 });
  }));

  test('7. shutdown then exit: the process exits 0', withLog(async () => {
    const r = await call('shutdown');
    assert.ok(r === null || r === undefined, `shutdown: result must be null: ${JSON.stringify(r)}`);
    await callError('read', { path: samplePath }, -32004);
    await conn.sendNotification('exit');
    let timer;
    const info = await Promise.race([
      exited,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('exit: toold did not exit within 5 s')), 5000);
      }),
    ]).finally(() => clearTimeout(timer));
    assert.equal(info.signal, null, `exit: toold ended by signal ${info.signal}`);
    assert.equal(info.code, 0, `exit: toold exit code ${info.code} after shutdown + exit`);
  }));
});

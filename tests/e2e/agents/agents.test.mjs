// toold through real agents set up as the README says: codex and gemini-cli
// (pinned in package.json), and Claude Code (tests/e2e/claude's), each run
// non-interactively, offline, against a local stand-in for its model's API
// (standins.mjs, ../claude/standin.mjs) that asks for toold tool calls and
// records what the agent sends back. The README's own lines set them up:
// `codex mcp add …`, the config.toml snippet, `gemini mcp add --scope user …`,
// the gemini-cli policy, `claude mcp add --scope user …`, with `toold` found
// on PATH as the README assumes.
//
//   cd tests/e2e/claude && npm ci && cd ../agents && npm ci && TOOLD_BIN=/path/to/toold npm test
//
// The last case shows that Claude Code, codex, gemini-cli and a shell, each
// giving toold another environment (codex strips XDG_RUNTIME_DIR), meet one
// shared daemon. It needs the system's runtime directory of the uid,
// /run/user/UID: run.sh gives the tests one in a mount namespace of their own
// when they run as root without it (CI), and leaves the real one alone.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startResponses, startGemini } from './standins.mjs';
import { startStandIn } from '../claude/standin.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '../../..');
const TOOLD_BIN = path.resolve(here, process.env.TOOLD_BIN || '../../../toold');
const BIN = {
  toold: TOOLD_BIN,
  codex: path.join(here, 'node_modules', '.bin', 'codex'),
  gemini: path.join(here, 'node_modules', '.bin', 'gemini'),
  claude: path.join(here, '..', 'claude', 'node_modules', '.bin', 'claude'),
};
const RUN_TIMEOUT = 240000; // an agent's turn, on a shared two-core machine

const tmpDirs = [];
function tempDir(prefix = 'toold-agents-e2e-') {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  tmpDirs.push(d);
  return d;
}
after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

// A bin directory with toold and the agents under the names the README uses.
const binDir = tempDir();
for (const [name, target] of Object.entries(BIN)) fs.symlinkSync(target, path.join(binDir, name));
// node for the agents' launchers; no toold elsewhere on PATH.
const PATH = [binDir, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');

// The README's section on agents, its lines and fenced blocks.
const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const agentsSection = readme.slice(readme.indexOf('\n## Use it from an agent\n'), readme.indexOf('\n## Run an agent'));
const readmeLine = (prefix) => {
  const line = agentsSection.split('\n').find((l) => l.startsWith(prefix));
  assert.ok(line, `the README has no line starting ${prefix}`);
  return line.trim();
};
const readmeBlock = (lang, marker) => {
  const blocks = [...agentsSection.matchAll(new RegExp('\n```' + lang + '\n([\\s\\S]*?)\n```', 'g'))].map((m) => m[1]);
  const block = blocks.find((b) => b.includes(marker));
  assert.ok(block, `the README has no ${lang} block with ${marker}`);
  return block;
};

const run = promisify(execFile);

// sh runs a README line as a user would, in home with env.
async function sh(line, env, cwd) {
  const { stdout, stderr } = await run('sh', ['-c', line], { env, cwd, timeout: 60000 });
  return { stdout, stderr };
}

// agent runs an agent's command and resolves to its exit code and output.
async function agent(bin, args, env, cwd) {
  const p = spawn(bin, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (b) => { stdout += b; });
  p.stderr.on('data', (b) => { stderr += b; });
  const timer = setTimeout(() => p.kill('SIGKILL'), RUN_TIMEOUT);
  const code = await new Promise((r) => p.on('exit', r));
  clearTimeout(timer);
  return { code, stdout, stderr, toString: () => `exit ${code}\nstdout: ${stdout.slice(-3000)}\nstderr: ${stderr.slice(-3000)}` };
}

// A file to read, and what toold's read tool shows of it.
function project() {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  return { dir, file: path.join(dir, 'notes.txt'), shown: '     1\talpha\n     2\tbeta\n     3\tgamma' };
}

const READ_ONLY = ['find', 'grep', 'ls', 'page', 'process_list', 'process_read', 'process_wait', 'read', 'readBytes', 'stats'];
const ALL = [...READ_ONLY, 'exec', 'process_kill', 'process_write'].sort();

// Each daemon of a case lives in a runtime directory of its own, except in
// the shared-daemon case, which must find the system's.
function isolated(home, extra = {}) {
  return { HOME: home, PATH, TOOLD_RUNTIME_DIR: path.join(home, 'run'), ...extra };
}

// codexHome writes what codex needs to reach the stand-in: a provider whose
// base URL is it, at the top of config.toml, before whatever the README's
// lines put there.
function codexConfig(home, standinURL, servers) {
  fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
  fs.writeFileSync(path.join(home, '.codex', 'config.toml'), `model = "gpt-5.1"
model_provider = "standin"
${servers}
[model_providers.standin]
name = "stand-in"
base_url = "${standinURL}/v1"
env_key = "STANDIN_API_KEY"
wire_api = "responses"
`);
}

async function codex(home, cwd, env, extraArgs = []) {
  return agent(BIN.codex, ['exec', '--skip-git-repo-check', ...extraArgs, 'Use toold.'], { ...env, STANDIN_API_KEY: 'standin' }, cwd);
}

// gemini-cli's settings beyond the README's line: the stand-in's API key
// (what its auth dialog would record), and cwd trusted (what answering its
// trust prompt records in trustedFolders.json).
function geminiSetup(home, cwd) {
  const settings = path.join(home, '.gemini', 'settings.json');
  const s = JSON.parse(fs.readFileSync(settings, 'utf8'));
  s.security = { auth: { selectedType: 'gemini-api-key' } };
  fs.writeFileSync(settings, JSON.stringify(s, null, 2));
  fs.writeFileSync(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [cwd]: 'TRUST_FOLDER' }));
  return s;
}

async function gemini(env, cwd, url) {
  return agent(BIN.gemini, ['-p', 'Use toold.', '-o', 'json'],
    { ...env, GEMINI_API_KEY: 'standin', GOOGLE_GEMINI_BASE_URL: url, NO_COLOR: '1' }, cwd);
}

describe('codex, set up as the README says', () => {
  test('codex mcp add: the read-only tools run unasked; codex exec refuses exec, which would need approval', async () => {
    const home = tempDir();
    const p = project();
    const env = isolated(home);
    const s = await startResponses({ server: 'toold', script: [
      { tool: 'read', args: { path: p.file } },
      { tool: 'exec', args: { command: 'echo ran' } },
    ] });
    try {
      await sh(readmeLine('codex mcp add toold -- toold mcp'), env, home);
      const added = fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8');
      codexConfig(home, s.url, added);
      const r = await codex(home, p.dir, env);
      assert.equal(r.code, 0, String(r));
      assert.deepEqual([...s.turn.offered].sort(), ALL, 'every tool offered');
      assert.equal(s.turn.results.length, 2, String(r));
      assert.ok(s.turn.results[0].includes(p.shown), `read: ${s.turn.results[0]}`);
      assert.match(s.turn.results[1], /requires approval/, `exec: ${s.turn.results[1]}`);
      assert.doesNotMatch(s.turn.results[1], /\bran\b/);
    } finally {
      await s.close();
    }
  });

  test("the README's config.toml: exec runs unasked, with codex's GOPATH passed on (env_vars)", async () => {
    const home = tempDir();
    const p = project();
    const env = isolated(home, { GOPATH: '/go-path-of-the-user' });
    const s = await startResponses({ server: 'toold', script: [
      { tool: 'exec', args: { command: 'echo "GOPATH=$GOPATH"; echo "vars=$(env | wc -l)"' } },
    ] });
    try {
      codexConfig(home, s.url, readmeBlock('toml', '[mcp_servers.toold]'));
      const r = await codex(home, p.dir, env);
      assert.equal(r.code, 0, String(r));
      assert.equal(s.turn.results.length, 1, String(r));
      assert.match(s.turn.results[0], /^exit status 0\n--- stdout ---\nGOPATH=\/go-path-of-the-user\nvars=\d+/m, s.turn.results[0]);
    } finally {
      await s.close();
    }
  });
});

describe('gemini-cli, set up as the README says', () => {
  test("gemini mcp add --scope user, a trusted folder and the README's policy: the read-only tools run unasked, the others are left out", async () => {
    const home = tempDir();
    const p = project();
    const env = isolated(home);
    const s = await startGemini({ server: 'toold', script: [{ tool: 'read', args: { path: p.file } }] });
    try {
      await sh(readmeLine('gemini mcp add --scope user toold'), env, home);
      const settings = geminiSetup(home, p.dir);
      assert.deepEqual(settings.mcpServers.toold, { command: 'toold', args: ['mcp', '--remote=auto'] });
      fs.mkdirSync(path.join(home, '.gemini', 'policies'));
      fs.writeFileSync(path.join(home, '.gemini', 'policies', 'toold.toml'), readmeBlock('toml', '[[rule]]'));
      const r = await gemini(env, p.dir, s.url);
      assert.equal(r.code, 0, String(r));
      assert.deepEqual([...s.turn.offered].sort(), READ_ONLY, 'the read-only tools, by their annotations');
      assert.equal(s.turn.results.length, 1, String(r));
      assert.ok(s.turn.results[0].includes(p.shown), `read: ${s.turn.results[0]}`);
    } finally {
      await s.close();
    }
  });

  test('gemini mcp add --trust: every tool, exec too, runs unasked', async () => {
    const home = tempDir();
    const p = project();
    const env = isolated(home);
    const s = await startGemini({ server: 'toold', script: [{ tool: 'exec', args: { command: 'echo ran' } }] });
    try {
      await sh(readmeLine('gemini mcp add --scope user toold').replace('--scope user', '--scope user --trust'), env, home);
      geminiSetup(home, p.dir);
      const r = await gemini(env, p.dir, s.url);
      assert.equal(r.code, 0, String(r));
      assert.deepEqual([...s.turn.offered].sort(), ALL);
      assert.match(s.turn.results[0] ?? '', /exit status 0\n--- stdout ---\nran/, String(r));
    } finally {
      await s.close();
    }
  });
});

// The system's runtime directory of this uid, if it is there and ours:
// where every client of the uid finds the shared daemon.
function systemRuntimeDir() {
  const d = `/run/user/${process.getuid()}`;
  try {
    const st = fs.lstatSync(d);
    return st.isDirectory() && st.uid === process.getuid() && (st.mode & 0o022) === 0 ? d : null;
  } catch {
    return null;
  }
}

describe('one shared daemon for Claude Code, codex, gemini-cli and a shell, each with its own environment', () => {
  const runtime = systemRuntimeDir();
  const skip = runtime ? false : `no /run/user/${process.getuid()} of this uid (run.sh makes one in a mount namespace as root)`;
  let daemonPid = 0;
  const shellEnv = () => ({ HOME: os.homedir(), PATH, XDG_RUNTIME_DIR: tempDir(), TMPDIR: tempDir(), LANG: 'C.UTF-8' });
  before(async () => {
    if (skip) return;
    // The shell starts it.
    const { stdout } = await run(TOOLD_BIN, ['call', '--remote=auto', 'exec', '{"command":"echo $PPID"}'], { env: shellEnv() });
    daemonPid = Number(JSON.parse(stdout).stdout.head.trim());
    assert.ok(daemonPid > 0, stdout);
  });
  after(async () => {
    if (!skip) await run(TOOLD_BIN, ['stop'], { env: shellEnv() }).catch(() => {});
  });
  // Each agent runs `echo $PPID` through toold's exec: the process that
  // runs the command is the shared daemon.
  const command = 'echo $PPID';
  const pidOf = (text) => Number((/--- stdout ---\n(\d+)/.exec(text ?? '') ?? [])[1]);

  test('Claude Code (its environment, XDG_RUNTIME_DIR elsewhere)', { skip }, async () => {
    const home = tempDir();
    const env = { HOME: home, PATH, XDG_RUNTIME_DIR: tempDir(), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', ENABLE_TOOL_SEARCH: 'false' };
    await sh(readmeLine('claude mcp add --scope user toold -- toold mcp'), env, home);
    const tool = 'mcp__toold__exec';
    const s = await startStandIn({ tool, input: { command } });
    try {
      const r = await agent(BIN.claude, ['-p', 'Use toold.', '--allowedTools', tool, '--output-format', 'json',
        '--model', 'claude-sonnet-4-5', '--no-session-persistence'],
      { ...env, ANTHROPIC_BASE_URL: s.url, ANTHROPIC_API_KEY: 'sk-ant-standin' }, home);
      assert.equal(r.code, 0, String(r));
      const [result] = s.toolResults;
      const text = typeof result?.content === 'string' ? result.content : result?.content?.[0]?.text;
      assert.equal(pidOf(text), daemonPid, `${text}\n${r}`);
    } finally {
      await s.close();
    }
  });

  test('codex (which starts toold without XDG_RUNTIME_DIR)', { skip }, async () => {
    const home = tempDir();
    const env = { HOME: home, PATH, XDG_RUNTIME_DIR: tempDir(), TOOLD_E2E_MARK: 'codex-strips-me' };
    const s = await startResponses({ server: 'toold', script: [{ tool: 'exec', args: { command: `${command}; echo "mark=$TOOLD_E2E_MARK xdg=$XDG_RUNTIME_DIR"` } }] });
    try {
      await sh(readmeLine('codex mcp add toold -- toold mcp'), env, home);
      codexConfig(home, s.url, fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8'));
      const r = await codex(home, home, env, ['-c', 'mcp_servers.toold.default_tools_approval_mode="approve"']);
      assert.equal(r.code, 0, String(r));
      const text = s.turn.results[0];
      assert.equal(pidOf(text), daemonPid, `${text}\n${r}`);
      assert.match(text, /mark= xdg=$/m, 'codex gave toold neither variable');
    } finally {
      await s.close();
    }
  });

  test('gemini-cli', { skip }, async () => {
    const home = tempDir();
    const env = { HOME: home, PATH };
    const s = await startGemini({ server: 'toold', script: [{ tool: 'exec', args: { command } }] });
    try {
      await sh(readmeLine('gemini mcp add --scope user toold').replace('--scope user', '--scope user --trust'), env, home);
      geminiSetup(home, home);
      const r = await gemini(env, home, s.url);
      assert.equal(r.code, 0, String(r));
      assert.equal(pidOf(s.turn.results[0]), daemonPid, `${s.turn.results[0]}\n${r}`);
    } finally {
      await s.close();
    }
  });

  test("toold status in the shell: that daemon, whose log names each agent's session", { skip }, async () => {
    const { stdout } = await run(TOOLD_BIN, ['status', '--json'], { env: { ...shellEnv(), XDG_RUNTIME_DIR: '' } });
    const st = JSON.parse(stdout);
    assert.equal(st.pid, daemonPid);
    assert.ok(st.socket.startsWith(`${runtime}/toold-${process.getuid()}/`), st.socket);
    const log = fs.readFileSync(st.logFile, 'utf8');
    const clients = new Set([...log.matchAll(/msg="client initialized" client=("[^"]*"|\S+)/g)].map((m) => m[1]));
    console.log(`# the daemon's sessions were named: ${[...clients].join(', ')}`);
    assert.ok(clients.size >= 4, `clients named in the log: ${[...clients]}`); // three agents and toold status
  });
});

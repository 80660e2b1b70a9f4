#!/usr/bin/env bash
# A Python worker logs 12,000 lines with the logging module; at job 5,207 it
# logs an exception (logger.exception): an ERROR line and a chained traceback
# in the middle of a long log, which then goes on.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > worker.py <<'PY'
import logging, json
logging.basicConfig(format="2026-11-22 02:%(minute)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
log = logging.getLogger("worker")
def load(job):
    return json.loads('{"job": %d, "size": }' % job)
def run(job):
    try:
        load(job)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"job {job}: bad manifest") from e
for job in range(12000):
    extra = {"minute": "%02d:%02d" % (job // 600 % 60, job // 10 % 60)}
    if job == 5207:
        try:
            run(job)
        except RuntimeError:
            log.exception("job %d failed", job, extra=extra)
        continue
    log.info("job %d done in %d ms", job, job % 97, extra=extra)
PY
python3 worker.py > "$out" 2>&1
sed -i "s#$tmp#/tmp/worker#g" "$out"

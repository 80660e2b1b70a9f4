#!/usr/bin/env python3
# bench/firstread.py TOOLD FILE RUNS: the first read of FILE by a fresh daemon (initialize,
# then one read with limit 1, timed from request to reply) beside `wc -l FILE`, interleaved;
# medians and their ratio. bench/outline.sh measures the same among its other rows.
import subprocess,json,time,sys,statistics,os
binp, f, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def toold():
    p=subprocess.Popen([binp],stdin=subprocess.PIPE,stdout=subprocess.PIPE,stderr=subprocess.DEVNULL)
    p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'); p.stdin.flush(); p.stdout.readline()
    req=json.dumps({"jsonrpc":"2.0","id":2,"method":"read","params":{"path":f,"limit":1}}).encode()+b"\n"
    t=time.perf_counter(); p.stdin.write(req); p.stdin.flush(); p.stdout.readline(); d=time.perf_counter()-t
    p.stdin.close(); p.wait(); return d
def wc():
    t=time.perf_counter(); subprocess.run(["wc","-l",f],stdout=subprocess.DEVNULL); return time.perf_counter()-t
a=[];b=[]
for i in range(runs):
    a.append(toold()); b.append(wc())
ma,mb=statistics.median(a),statistics.median(b)
print(f"toold read median {ma*1000:.0f} ms, wc -l median {mb*1000:.0f} ms, ratio {ma/mb:.2f}; load {os.getloadavg()[0]:.2f}")

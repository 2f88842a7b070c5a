#!/usr/bin/env python3
"""Time to first token from a cold or warm start, and resident memory, of an
OpenAI-compatible server (burrow-cli serve, llama-server).
usage: scripts/bench-load.py [--warm] PORT MODEL -- SERVER COMMAND...
Without --warm, MODEL is dropped from the page cache first (posix_fadvise
DONTNEED, and /proc/sys/vm/drop_caches when writable: root). Starts the
server, polls /health until 200, POSTs /v1/completions for 1 token, and
prints seconds from launch to ready and to the reply, and the server's peak
RssAnon (private) / RssFile (mapped file pages) / VmRSS, sampled every 10 ms.
The server's stderr goes to /tmp/bench-load.err. docs/benchmarks.md, "Load
time and memory"."""
import os, sys, time, subprocess, json, urllib.request
from procmem import Peak, evict
args = sys.argv[1:]
warm = args[0] == '--warm'
if warm: args = args[1:]
port, model = args[0], args[1]; cmd = args[args.index('--')+1:]
if not warm:
    evict([model])
peak = Peak()
poll = peak.sample
t0 = time.monotonic()
import atexit
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open('/tmp/bench-load.err','w'))
atexit.register(lambda: p.poll() is None and p.kill())
base = f'http://127.0.0.1:{port}'
ready = None
while True:
    poll(p.pid)
    if p.poll() is not None: print('server exited', p.returncode); sys.exit(1)
    try:
        with urllib.request.urlopen(base + '/health', timeout=1) as r:
            if r.status == 200: ready = time.monotonic() - t0; break
    except Exception: pass
    time.sleep(0.01)
body = json.dumps({'model': os.path.basename(model)[:-5], 'prompt': 'Once upon a time there was', 'max_tokens': 1, 'temperature': 0}).encode()
import threading
done = False
def poller():
    while not done: poll(p.pid); time.sleep(0.01)
th = threading.Thread(target=poller); th.start()
req = urllib.request.Request(base + '/v1/completions', data=body, headers={'Content-Type': 'application/json'})
with urllib.request.urlopen(req, timeout=600) as r: r.read()
ttft = time.monotonic() - t0
done = True; th.join()
cur = poll(p.pid)
p.terminate(); p.wait()
mib = peak.mib
print(f"ready {ready:.2f} s  first token {ttft:.2f} s  peak RssAnon {mib('RssAnon'):.0f} MiB  RssFile {mib('RssFile'):.0f} MiB  VmRSS {mib('VmRSS'):.0f} MiB  after reply: anon {cur.get('RssAnon',0)/1024:.0f} file {cur.get('RssFile',0)/1024:.0f} MiB")

#!/usr/bin/env python3
"""Peak resident memory of a command, split into private and file pages.
usage: scripts/peak-rss.py FILE... -- COMMAND...
Drops each FILE from the page cache (posix_fadvise DONTNEED; drop_caches when
root), runs COMMAND (stderr to /tmp/peak-rss.err), samples /proc/PID/status
every 10 ms and prints the wall time and the peak RssAnon / RssFile / VmRSS
and ru_maxrss in MiB. docs/benchmarks.md, "Memory with the context full"."""
import os, sys, time, subprocess
from procmem import Peak, evict
i = sys.argv.index('--'); files = sys.argv[1:i]; cmd = sys.argv[i+1:]
evict(files)
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open('/tmp/peak-rss.err','w'))
peak = Peak()
while True:
    peak.sample(p.pid)
    r = os.wait4(p.pid, os.WNOHANG)
    if r[0] != 0: break
    time.sleep(0.01)
wall = time.monotonic() - t0
print(f"wall {wall:.2f} s  rc {r[1]>>8}  peak RssAnon {peak.mib('RssAnon'):.0f} MiB  RssFile {peak.mib('RssFile'):.0f} MiB  VmRSS {peak.mib('VmRSS'):.0f} MiB  maxrss {r[2].ru_maxrss/1024:.0f} MiB")

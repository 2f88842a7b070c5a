#!/usr/bin/env python3
"""Peak resident memory of a command, split into private and file pages.
usage: scripts/peak-rss.py FILE... -- COMMAND...
Drops each FILE from the page cache (posix_fadvise DONTNEED; drop_caches when
root), runs COMMAND (stderr to /tmp/peak-rss.err), samples /proc/PID/status
every 10 ms and prints the wall time and the peak RssAnon / RssFile / VmRSS
and ru_maxrss in MiB. docs/benchmarks.md, "Memory with the context full"."""
import os, sys, time, subprocess
i = sys.argv.index('--'); files = sys.argv[1:i]; cmd = sys.argv[i+1:]
for f in files:
    fd = os.open(f, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
try:
    with open('/proc/sys/vm/drop_caches','w') as d: d.write('1\n')
except OSError: pass
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open('/tmp/peak-rss.err','w'))
peak = {'RssAnon':0,'RssFile':0,'VmRSS':0}
while True:
    try:
        with open(f'/proc/{p.pid}/status') as s:
            for line in s:
                k = line.split(':')[0]
                if k in peak: peak[k] = max(peak[k], int(line.split()[1]))
    except Exception: pass
    r = os.wait4(p.pid, os.WNOHANG)
    if r[0] != 0: break
    time.sleep(0.01)
wall = time.monotonic() - t0
print(f"wall {wall:.2f} s  rc {r[1]>>8}  peak RssAnon {peak['RssAnon']/1024:.0f} MiB  RssFile {peak['RssFile']/1024:.0f} MiB  VmRSS {peak['VmRSS']/1024:.0f} MiB  maxrss {r[2].ru_maxrss/1024:.0f} MiB")

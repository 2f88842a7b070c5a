"""Shared by bench-load.py and peak-rss.py: dropping files from the page
cache, and a process's resident memory from /proc/PID/status (KiB)."""
import os

FIELDS = ('RssAnon', 'RssFile', 'VmRSS')


def evict(paths):
    """Drops each file's pages (posix_fadvise DONTNEED), then the clean page
    cache when writable (root); without root the fadvise is what evicts."""
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    try:
        with open('/proc/sys/vm/drop_caches', 'w') as d:
            d.write('1\n')
    except OSError:
        pass


class Peak:
    """The largest RssAnon / RssFile / VmRSS seen over calls of sample()."""

    def __init__(self):
        self.peak = dict.fromkeys(FIELDS, 0)

    def sample(self, pid):
        """Reads the process's fields now (an empty dict once it is gone)."""
        now = {}
        try:
            with open(f'/proc/{pid}/status') as s:
                for line in s:
                    key = line.split(':')[0]
                    if key in self.peak:
                        now[key] = int(line.split()[1])
                        self.peak[key] = max(self.peak[key], now[key])
        except OSError:
            pass
        return now

    def mib(self, key):
        return self.peak[key] / 1024

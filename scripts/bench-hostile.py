#!/usr/bin/env python3
"""A normal keyed client's latency while hostile clients hold the server:
SLOW connections sending their request header a byte at a time (slowloris)
and IDLE sockets that send nothing and reconnect as soon as they are closed
(one client holding the connection limit). Every INTERVAL seconds the normal
client sends an authorized request on a new connection and times it.
Afterwards a STORM of connections is opened and dropped, and the server's
resident memory is read before and after (when its pid is known).

usage: scripts/bench-hostile.py [--port P | --serve MODEL.gguf] [--key KEY]
           [--slow 200] [--idle 128] [--seconds 30] [--interval 0.5] [--storm 2000]
With --serve it starts `build/release/engine/tools/burrow-cli serve MODEL
--port 0 --api-key KEY` itself. Target (issue 27): every normal request
answered 200 within 2 s. Exit status 0 when it was, 1 otherwise.
Python 3 standard library only."""
import argparse, asyncio, http.client, json, os, re, signal, statistics, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def start_server(model, key):
    cli = os.path.join(ROOT, "build", "release", "engine", "tools", "burrow-cli")
    proc = subprocess.Popen([cli, "serve", "-m", model, "--port", "0", "--api-key", key, "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.search(r":(\d+)\s*$", line)
    if not m:
        proc.kill()
        sys.exit(f"bench-hostile: the server did not start ({line!r})")
    return proc, int(m.group(1))


class Attackers:
    """SLOW slowloris connections and IDLE silent ones, all reconnecting."""

    def __init__(self, port, slow, idle):
        self.port, self.slow, self.idle = port, slow, idle
        self.connects = 0
        self.closed_by_server = 0
        self.stop = False

    async def slow_one(self, i):
        header = f"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-{i}: " + "x" * 4000
        while not self.stop:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                self.connects += 1
                for ch in header:
                    if self.stop:
                        break
                    writer.write(ch.encode())
                    await writer.drain()
                    await asyncio.sleep(0.5)
                    if reader.at_eof():
                        break
                writer.close()
                self.closed_by_server += 1
            except (OSError, asyncio.IncompleteReadError):
                await asyncio.sleep(0.05)

    async def idle_one(self):
        while not self.stop:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                self.connects += 1
                await reader.read()        # until the server closes it (or answers 503 and closes)
                writer.close()
                self.closed_by_server += 1
            except OSError:
                await asyncio.sleep(0.05)

    async def run(self, seconds):
        tasks = [asyncio.create_task(self.slow_one(i)) for i in range(self.slow)]
        tasks += [asyncio.create_task(self.idle_one()) for _ in range(self.idle)]
        await asyncio.sleep(seconds)
        self.stop = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def normal_client(port, key, seconds, interval, results):
    body = json.dumps({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1, "temperature": 0})
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic()
        status = None
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("POST", "/v1/chat/completions", body=body,
                      headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
            r = c.getresponse()
            r.read()
            status = r.status
            c.close()
        except OSError as e:
            status = f"error: {e}"
        results.append((status, time.monotonic() - t0))
        time.sleep(max(0.0, interval - (time.monotonic() - t0)))


def storm(port, n):
    """n connections opened at once, each sending half a header, then all dropped."""
    import socket
    socks = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"p" * 8000)
            socks.append(s)
        except OSError:
            break
    for s in socks:
        s.close()
    return len(socks)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int)
    ap.add_argument("--serve", metavar="MODEL")
    ap.add_argument("--pid", type=int, help="the server's pid, for its memory (known with --serve)")
    ap.add_argument("--key", default="bench-key")
    ap.add_argument("--slow", type=int, default=200)
    ap.add_argument("--idle", type=int, default=128)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--interval", type=float, default=0.5)
    ap.add_argument("--storm", type=int, default=2000)
    ap.add_argument("--target", type=float, default=2.0, help="seconds a normal request may take")
    a = ap.parse_args()
    proc = None
    if a.serve:
        proc, a.port = start_server(a.serve, a.key)
        a.pid = proc.pid
    if not a.port:
        sys.exit("bench-hostile: give --port or --serve")
    try:
        rss0 = rss_kib(a.pid) if a.pid else None
        attackers = Attackers(a.port, a.slow, a.idle)
        results = []
        client = threading.Thread(target=normal_client,
                                  args=(a.port, a.key, a.seconds, a.interval, results))
        warm = threading.Timer(2.0, client.start)   # let the attackers fill the server first
        warm.start()
        asyncio.run(attackers.run(a.seconds + 2.5))
        client.join()
        ok = [t for s, t in results if s == 200]
        late = [t for s, t in results if s == 200 and t > a.target]
        failed = [s for s, _ in results if s != 200]
        print(f"hostile: {a.slow} slow + {a.idle} idle connections for {a.seconds:.0f} s; "
              f"attacker connects {attackers.connects}, closed by the server {attackers.closed_by_server}")
        if ok:
            print(f"normal keyed client: {len(results)} requests, {len(ok)} answered 200, {len(failed)} failed "
                  f"{sorted(set(map(str, failed)))[:5]}; latency median {statistics.median(ok):.3f} s, "
                  f"max {max(ok):.3f} s; over {a.target:g} s: {len(late)}")
        else:
            print(f"normal keyed client: {len(results)} requests, none answered 200: {failed[:5]}")
        stormed = storm(a.port, a.storm) if a.storm else 0
        if a.pid:
            time.sleep(3)   # lingering closes end; the server trims freed memory once the storm is gone
            rss1 = rss_kib(a.pid)
            print(f"server memory (VmRSS): {rss0} KiB before, {rss1} KiB after {stormed} connections came and went")
        passed = bool(results) and len(ok) == len(results) and not late
        print("target met" if passed else "target NOT met")
        return 0 if passed else 1
    finally:
        if proc:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())

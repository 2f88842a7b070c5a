#!/usr/bin/env python3
"""Aggregate generation of an OpenAI-compatible server under N parallel
completion requests (greedy, max_tokens each), measured from outside.
usage: scripts/bench-serve.py PORT N TOKENS [ROUNDS]
(docs/benchmarks.md, "Against llama-server"; LLAMA_NATIVE=1 asks llama-server
its own /completion instead of /v1/completions; STREAM=1 streams each reply
as server-sent events, one chunk per piece of text, and takes the token count
from the usage chunk: docs/benchmarks.md, "Many streams through the server")"""
import json, os, sys, threading, time, urllib.request, urllib.error

port, n, tokens = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 1
base = f"http://127.0.0.1:{port}"
model = json.loads(urllib.request.urlopen(base + "/v1/models").read())["data"][0]["id"]

# Prompts whose greedy continuation on the random bench models the reference's
# server can return (with others its output parser answers 500 on the random
# bytes the model writes): the same for both servers.
GOOD = [0, 1, 2, 4, 5, 6, 7, 8, 10]

def one(i, out, errors):
    native = os.environ.get("LLAMA_NATIVE") == "1"   # llama-server's own /completion
    stream = os.environ.get("STREAM") == "1"
    fields = {"model": model, "prompt": f"Story number {GOOD[i % len(GOOD)]} begins here:", "max_tokens": tokens,
              "n_predict": tokens, "temperature": 0, "seed": i, "ignore_eos": True}
    if stream:
        fields.update({"stream": True, "stream_options": {"include_usage": True}})
    body = json.dumps(fields).encode()
    req = urllib.request.Request(base + ("/completion" if native else "/v1/completions"), data=body,
                                 headers={"Content-Type": "application/json"})
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            if stream:   # read event by event as a streaming client does; the usage chunk counts the tokens
                count = None
                for line in r:
                    line = line.strip()
                    if not line.startswith(b"data: ") or line == b"data: [DONE]":
                        continue
                    d = json.loads(line[6:])
                    if d.get("usage"):
                        count = d["usage"]["completion_tokens"]
                out[i] = (count or 0, t0, time.monotonic())
                return
            d = json.loads(r.read())
        out[i] = (d["tokens_predicted"] if native else d["usage"]["completion_tokens"], t0, time.monotonic())
    except urllib.error.HTTPError as e:
        errors.append(f"{e.code} {e.read()[:200]!r}")

for rnd in range(rounds):
    out, errors = {}, []
    ts = [threading.Thread(target=one, args=(i, out, errors)) for i in range(n)]
    for t in ts: t.start()
    for t in ts: t.join()
    if errors or not out:
        print("errors:", errors); continue
    toks = sum(v[0] for v in out.values())
    wall = max(v[2] for v in out.values()) - min(v[1] for v in out.values())
    print(f"streams {n} tokens {toks} wall {wall:.2f}s aggregate {toks / wall:.1f} t/s")

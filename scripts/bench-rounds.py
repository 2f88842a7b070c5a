#!/usr/bin/env python3
"""Prompt and generation speed of Burrow against llama.cpp (and ik_llama.cpp)
on the same files, in alternating rounds (docs/benchmarks.md).

usage: scripts/bench-rounds.py [-p 512] [-n 32] [-t 2] [-r 3] [--rounds 2]
           [--llama BIN/llama-bench] [--ik BIN/llama-bench] [--burrow burrow-cli]
           [--memory] [--ik-rtr] [--avx2] MODEL...

Round k runs, for every model, the engines in turn: odd rounds the
references first, even rounds Burrow first, so a host that slows down or
speeds up during the run weighs on every engine alike. Each engine runs
`-p P -n N -t T -r R` (llama-bench and `burrow-cli bench` take the same
flags; both print JSON with -o json / --json). A reference that cannot read
a file (its exit status not 0) is shown as "—". With --memory, Burrow's
bench also measures the streaming read bandwidth and the share of the
bandwidth bound its generation reaches, per round.

--ik-rtr runs ik_llama.cpp twice per round, with its run-time repacking
off and on (`-rtr 0`, `-rtr 1`), and counts the faster of the two (issue 32:
"best of -rtr on/off"). --avx2 measures the AVX2 path: Burrow with
BURROW_CPU_PATH=avx2 BURROW_AVX_VNNI=0 and, unless --llama is given, the
reference built for AVX2 only (/work/ref/llama.cpp/build-avx2); ik_llama.cpp
is left out unless --ik names an AVX2 build.

Prints one Markdown table row per model: each engine's pp / tg (the mean of
the rounds' means), Burrow's ratios to each reference, and the bound.
Every run's raw JSON goes to stderr's log file /tmp/bench-rounds.log."""
import argparse, json, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument('-p', type=int, default=512)
ap.add_argument('-n', type=int, default=32)
ap.add_argument('-t', type=int, default=2)
ap.add_argument('-r', type=int, default=3)
ap.add_argument('--rounds', type=int, default=2)
ap.add_argument('--llama', default='/work/ref/llama.cpp/build/bin/llama-bench')
ap.add_argument('--ik', default='/work/ref/ik_llama.cpp/build/bin/llama-bench')
ap.add_argument('--burrow', default=os.path.join(os.path.dirname(__file__), '..', 'build', 'release', 'engine',
                                                 'tools', 'burrow-cli'))
ap.add_argument('--memory', action='store_true')
ap.add_argument('--ik-rtr', action='store_true')
ap.add_argument('--avx2', action='store_true')
ap.add_argument('models', nargs='+')
ik_given = '--ik' in sys.argv
llama_given = '--llama' in sys.argv
a = ap.parse_args()
burrow_env = dict(os.environ)
if a.avx2:
    burrow_env.update(BURROW_CPU_PATH='avx2', BURROW_AVX_VNNI='0')
    if not llama_given:
        a.llama = '/work/ref/llama.cpp/build-avx2/bin/llama-bench'
    if not ik_given:
        a.ik = ''
log = open('/tmp/bench-rounds.log', 'a')


def run(cmd, env=None):
    log.write('$ ' + ' '.join(cmd) + '\n')
    log.flush()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    log.write(p.stdout + p.stderr + '\n')
    if p.returncode != 0:
        return None
    out = p.stdout
    start = out.find('[')
    return json.loads(out[start:]) if start >= 0 else None


def speeds(rows):
    """{'pp': t/s, 'tg': t/s, 'bound': fraction or None} from llama-bench's or burrow's JSON."""
    r = {}
    gbps = None
    for row in rows or []:
        if row.get('test') == 'memory':
            gbps = row.get('avg_gbps')
            continue
        n_prompt, n_gen = row.get('n_prompt', 0), row.get('n_gen', 0)
        ts = row.get('avg_ts', row.get('tokens_per_second_mean'))
        if ts is None:
            continue
        key = 'pp' if n_prompt and not n_gen else 'tg'
        r[key] = ts
        if key == 'tg' and gbps and row.get('weight_bytes_per_token'):
            # the bound: the streaming bandwidth over the bytes one token reads
            r['bound'] = ts * row['weight_bytes_per_token'] / (gbps * 1e9)
    return r


flags = ['-p', str(a.p), '-n', str(a.n), '-t', str(a.t), '-r', str(a.r)]
# A reference that is not built here is left out of the table (said on stderr).
engines = []
if os.path.exists(a.llama):
    engines.append(('llama', [a.llama, '-o', 'json'] + flags))
else:
    print(f'bench-rounds: {a.llama} not found: llama.cpp left out', file=sys.stderr)
if a.ik and os.path.exists(a.ik):
    if a.ik_rtr:
        engines.append(('ik', [a.ik, '-o', 'json', '-rtr', '0'] + flags))
        engines.append(('ik-rtr', [a.ik, '-o', 'json', '-rtr', '1'] + flags))
    else:
        engines.append(('ik', [a.ik, '-o', 'json'] + flags))
burrow = ('burrow', [a.burrow, 'bench', '--json'] + flags + (['--memory'] if a.memory else []))
results = {}   # (model, engine) -> list of per-round dicts
for k in range(1, a.rounds + 1):
    order = engines + [burrow] if k % 2 == 1 else [burrow] + engines
    for m in a.models:
        for name, cmd in order:
            res = speeds(run(cmd + ['-m', m], burrow_env if name == 'burrow' else None))
            results.setdefault((m, name), []).append(res)
            print(f'round {k} {os.path.basename(m)} {name}: {res}', file=sys.stderr, flush=True)


def mean(m, eng, key):
    v = [r[key] for r in results.get((m, eng), []) if r and key in r]
    return sum(v) / len(v) if v else None


if a.ik_rtr:   # ik: the better of -rtr 0 and -rtr 1, per key
    for m in a.models:
        best = {}
        for key in ('pp', 'tg'):
            v = [x for x in (mean(m, 'ik', key), mean(m, 'ik-rtr', key)) if x is not None]
            if v:
                best[key] = max(v)
        results[(m, 'ik')] = [best]
    engines = [e for e in engines if e[0] != 'ik-rtr']


def fmt(x, d=1):
    return '—' if x is None else f'{x:.{d}f}'


names = [e[0] for e in engines]
print('| model | ' + ' | '.join(f'{n} pp{a.p} / tg{a.n}' for n in names + ['burrow']) + ' | ' +
      ' | '.join(f'pp ÷ {n} | tg ÷ {n}' for n in names) + ' | tg of bound (rounds) |')
print('| --- |' + ' ---: |' * (len(names) + 1 + 2 * len(names) + 1))
for m in a.models:
    cells = [f'{fmt(mean(m, n, "pp"))} / {fmt(mean(m, n, "tg"))}' for n in names + ['burrow']]
    ratios = []
    for n in names:
        for key in ('pp', 'tg'):
            b, ref = mean(m, 'burrow', key), mean(m, n, key)
            ratios.append('—' if b is None or ref is None else f'{b / ref:.2f}×')
    bounds = [r.get('bound') for r in results.get((m, 'burrow'), []) if r]
    bound = ', '.join(f'{100 * b:.0f} %' for b in bounds if b is not None) or '—'
    print(f'| {os.path.basename(m)} | ' + ' | '.join(cells) + ' | ' + ' | '.join(ratios) + f' | {bound} |')

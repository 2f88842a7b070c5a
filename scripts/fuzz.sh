#!/usr/bin/env bash
# Fuzzes with libFuzzer, one worker per target, one target after the other.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]     (after scripts/build.sh fuzz)
#   SECONDS: the whole budget (default 60), split evenly among the targets.
#   TARGET:  gguf (the GGUF reader), jinja (chat templates and the reasoning
#            splitter), vocab (vocabulary loading and tokenizing), request
#            (the server's request bodies and header checks), http (the
#            server's HTTP request path from raw bytes: Beast's parser under
#            the server's limits), schema (the JSON-schema grammar: compile
#            and match); default all.
#
# Seed corpora, rebuilt every run in build/fuzz/fuzz-work/<target>/seeds:
#   gguf:  valid and corrupt files written by gguf_seed_corpus; the first
#          4 KiB and 64 KiB of every .gguf in ../shared (when present);
#   jinja: the built-in formats and small templates (chat_seed_corpus), and
#          every case of ../shared/templates*/cases.json with its template;
#   vocab: generated vocabularies for every pre-tokenizer (vocab_seed_corpus)
#          and the ../shared/tokenizer*/ vocabularies cut down to kilobytes;
#   request: a few chat, completion, Messages and Responses bodies written
#          below (request_seeds);
#   schema: a few schemas, each with a text to match (schema_seeds);
#   http:  raw requests written below (http_seeds): chunked with trailers,
#          pipelined, 100-continue, HTTP/1.0, HEAD, and a trailer past
#          Beast's field limit (issue 27's crash);
# plus, for each, the corpus kept in the repository (fuzz/corpus/<target>/:
# the inputs of issue 27 that crashed, froze or exhausted memory) and the
# kept crash inputs under tests/engine/<folder>/data/.
# Each input is bounded in time (-timeout, seconds) and memory
# (-malloc_limit_mb, -rss_limit_mb): an input that takes longer or allocates
# more is reported as a bug (the jinja target renders under RenderLimits that
# keep any template well inside both).
# Nothing from ../shared is copied into the repository. The corpus each
# fuzzer grows is kept in build/fuzz/fuzz-work/<target>/corpus between runs.
# A crash exits non-zero and leaves its input in build/fuzz/crashes/<target>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(gguf jinja vocab request http schema)
fi
tree="$root/build/fuzz"
if [[ ! -f "$tree/build.ninja" ]]; then
    echo "fuzz.sh: $tree is not configured; run scripts/build.sh fuzz first" >&2
    exit 2
fi
shared="$root/../shared"
per=$(( seconds / ${#targets[@]} ))
(( per >= 1 )) || per=1

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# run_target NAME FUZZER MAX_LEN KEPT_DIR KEPT_GLOB SEED_COMMAND...
run_target() {
    local name=$1 fuzzer=$2 maxlen=$3 kept=$4 glob=$5
    shift 5
    local work="$tree/fuzz-work/$name"
    local seeds="$work/seeds" corpus="$work/corpus" crashes="$tree/crashes/$name"
    rm -rf "$seeds"
    mkdir -p "$seeds" "$corpus" "$crashes"
    "$@" "$seeds" >/dev/null
    if [[ -d "$kept" ]]; then
        find "$kept" -type f -name "$glob" -exec cp {} "$seeds/" \;
    fi
    if [[ -d "$root/fuzz/corpus/$name" ]]; then
        find "$root/fuzz/corpus/$name" -type f -exec cp {} "$seeds/" \;
    fi
    echo "fuzz.sh: $name: $(ls "$seeds" | wc -l) seed files; fuzzing for $per s"
    local log="$work/fuzz.log" status=0
    "$tree/fuzz/$fuzzer" "$corpus" "$seeds" \
        -max_total_time="$per" -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1 || status=$?
    tail -n 12 "$log"
    if [[ $status -ne 0 ]]; then
        echo "fuzz.sh: $name: the fuzzer failed (exit $status); inputs in $crashes, full log in $log" >&2
        return 1
    fi
    echo "fuzz.sh: $name: no crash in $per s"
}

gguf_seeds() {
    local dir=$1
    "$tree/fuzz/gguf_seed_corpus" "$dir"
    if [[ -d "$shared" ]]; then
        while IFS= read -r -d '' file; do
            local name
            name=$(basename "$file" .gguf)
            head -c 4096 "$file" >"$dir/shared-$name-4k.gguf"
            head -c 65536 "$file" >"$dir/shared-$name-64k.gguf"
        done < <(find "$shared" -name '*.gguf' -type f -print0)
    fi
}

with_shared() {
    # Runs "$@ DIR [SHARED]": the generator, with ../shared when present.
    local gen=$1 dir=$2
    if [[ -d "$shared" ]]; then
        "$gen" "$dir" "$shared"
    else
        "$gen" "$dir"
    fi
}
jinja_seeds() { with_shared "$tree/fuzz/chat_seed_corpus" "$1"; }
vocab_seeds() { with_shared "$tree/fuzz/vocab_seed_corpus" "$1"; }
request_seeds() {
    local dir=$1
    printf '%s' '{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"reasoning_content":"hm","tool_calls":[{"id":"c1"}]}],"max_tokens":16,"temperature":0.5,"top_p":0.9,"top_k":40,"min_p":0.05,"seed":-1,"stop":["END","\n"],"stream":true,"stream_options":{"include_usage":true},"n":2,"reasoning_effort":"high","thinking":{"type":"enabled"},"chat_template_kwargs":{"enable_thinking":false}}' >"$dir/chat.json"
    printf '%s' '{"prompt":["Once upon a time"],"max_completion_tokens":8,"presence_penalty":-1.5,"frequency_penalty":2,"stop":"x","logprobs":null,"response_format":{"type":"text"}}' >"$dir/completion.json"
    printf 'localhost:8080\nhttp://localhost:3000\nBearer s3cret' >"$dir/headers.txt"
    printf '%s' '{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"}}}}}],"tool_choice":"required","parallel_tool_calls":false,"logprobs":true,"top_logprobs":2}' >"$dir/tools.json"
    printf '%s' '{"model":"m","system":"s","max_tokens":8,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}],"tools":[{"name":"f","input_schema":{"type":"object"}}],"tool_choice":{"type":"any"}}' >"$dir/messages.json"
    printf '%s' '{"model":"m","instructions":"s","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}],"tools":[{"type":"function","name":"f"}],"text":{"format":{"type":"json_schema","name":"x","schema":{"type":"object"}}}}' >"$dir/responses.json"
}

schema_seeds() {
    local dir=$1
    printf '%s\n%s' '{"type":"object","properties":{"a":{"type":"string","maxLength":3},"b":{"type":"array","items":{"enum":[1,12,"x"]},"maxItems":2},"c":{"anyOf":[{"type":"null"},{"type":"number"}]}},"required":["a"]}' '{"a":"xy","b":[12,"x"],"c":-1.5e3}' >"$dir/object.txt"
    printf '%s\n%s' '{"$defs":{"n":{"type":"object","properties":{"v":{"type":"integer"},"next":{"anyOf":[{"$ref":"#/$defs/n"},{"type":"null"}]}}}},"$ref":"#/$defs/n"}' '{"v":1,"next":{"v":2,"next":null}}' >"$dir/recursive.txt"
    printf '%s\n%s' '{}' '[[[{"a":[true,false,null,"\u00e9"]}]]]' >"$dir/any.txt"
}

http_seeds() {
    local dir=$1 body='{"messages":[{"role":"user","content":"hi"}],"stream":true}'
    # The first byte of each input is the read size the fuzzer feeds in.
    printf '\x10GET /health HTTP/1.1\r\nHost: localhost\r\n\r\nHEAD /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' >"$dir/pipelined.http"
    printf '\x07POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer s3cret\r\nContent-Length: %d\r\n\r\n%s' "${#body}" "$body" >"$dir/chat.http"
    printf '\x03POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"pro\r\nb\r\nmpt":"a b"}\r\n0\r\nX-Sum: 1\r\n\r\n' >"$dir/chunked-trailer.http"
    printf '\x20POST /v1/chat/completions HTTP/1.0\r\nHost: localhost\r\nOrigin: http://localhost:3000\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n%s' "${#body}" "$body" >"$dir/http10.http"
    { printf '\x40POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-Big: '
      head -c 65534 /dev/zero | tr '\0' 'x'
      printf '\r\n\r\n'; } >"$dir/trailer-65534.http"
}

failed=0
for target in "${targets[@]}"; do
    case "$target" in
        gguf)
            cmake --build "$tree" --target fuzz_gguf_reader gguf_seed_corpus >/dev/null
            run_target gguf fuzz_gguf_reader 65536 "$root/tests/engine/gguf/data/gguf-crashes" "*.gguf" gguf_seeds || failed=1 ;;
        jinja)
            cmake --build "$tree" --target fuzz_jinja chat_seed_corpus >/dev/null
            run_target jinja fuzz_jinja 65536 "$root/tests/engine/chat/data/jinja-crashes" "*.txt" jinja_seeds || failed=1 ;;
        vocab)
            cmake --build "$tree" --target fuzz_vocab vocab_seed_corpus >/dev/null
            run_target vocab fuzz_vocab 262144 "$root/tests/engine/tokenizer/data/vocab-crashes" "*.gguf" vocab_seeds || failed=1 ;;
        request)
            cmake --build "$tree" --target fuzz_api_request >/dev/null
            run_target request fuzz_api_request 65536 "$root/tests/engine/server/data/request-crashes" "*" request_seeds || failed=1 ;;
        http)
            cmake --build "$tree" --target fuzz_http_request >/dev/null
            run_target http fuzz_http_request 131072 "$root/tests/engine/server/data/http-crashes" "*" http_seeds || failed=1 ;;
        schema)
            cmake --build "$tree" --target fuzz_json_schema >/dev/null
            run_target schema fuzz_json_schema 65536 "$root/tests/engine/grammar/data/schema-crashes" "*" schema_seeds || failed=1 ;;
        *)
            echo "fuzz.sh: unknown target '$target' (gguf, jinja, vocab, request, http, schema)" >&2
            exit 2 ;;
    esac
done
if [[ $failed -ne 0 ]]; then
    exit 1
fi
echo "fuzz.sh: no crash in ${targets[*]}"

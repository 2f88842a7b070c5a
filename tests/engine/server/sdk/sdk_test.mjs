// The official OpenAI Node.js SDK against a running `burrow-cli serve`
// (started by tst_serve_sdk, which passes its base URL and model id):
//   node sdk_test.mjs http://127.0.0.1:PORT/v1 MODEL_ID
// Each check throws on a mismatch; the exit status is 0 only when all pass.
// Outputs compared are greedy (temperature 0), so a stream must spell
// exactly what the whole response says.
import OpenAI from "openai";
import assert from "node:assert/strict";

const [baseURL, model] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: "none", maxRetries: 0, timeout: 60000 });
const messages = [{ role: "user", content: "Once upon a time" }];
let checks = 0;
const check = async (name, fn) => {
  await fn();
  checks++;
  console.log(`ok ${name}`);
};

await check("models.list", async () => {
  const list = await client.models.list();
  const ids = list.data.map((m) => m.id);
  assert.deepEqual(ids, [model]);
  const one = await client.models.retrieve(model);
  assert.equal(one.id, model);
});

let whole;
await check("chat, whole", async () => {
  whole = await client.chat.completions.create({ model, messages, max_tokens: 24, temperature: 0 });
  assert.equal(whole.object, "chat.completion");
  assert.equal(whole.choices.length, 1);
  assert.equal(whole.choices[0].message.role, "assistant");
  assert.equal(typeof whole.choices[0].message.content, "string");
  assert.ok(whole.choices[0].message.content.length > 0, "empty reply");
  assert.ok(["stop", "length"].includes(whole.choices[0].finish_reason));
  assert.ok(whole.usage.prompt_tokens > 0);
  assert.ok(whole.usage.completion_tokens > 0 && whole.usage.completion_tokens <= 24);
  assert.equal(whole.usage.total_tokens, whole.usage.prompt_tokens + whole.usage.completion_tokens);
});

await check("chat, streamed with usage = whole", async () => {
  const stream = await client.chat.completions.create({
    model, messages, max_tokens: 24, temperature: 0, stream: true, stream_options: { include_usage: true },
  });
  let text = "", first = true, finish = null, usage = null, chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    assert.equal(chunk.object, "chat.completion.chunk");
    assert.equal(chunk.model, model);
    if (chunk.usage) {
      assert.equal(chunk.choices.length, 0);
      usage = chunk.usage;
      continue;
    }
    assert.equal(usage, null, "a chunk after the usage chunk");
    const c = chunk.choices[0];
    if (first) {
      assert.equal(c.delta.role, "assistant");
      first = false;
    }
    assert.equal(finish, null, "a chunk after finish_reason");
    if (c.finish_reason) finish = c.finish_reason;
    text += c.delta.content ?? "";
  }
  assert.ok(chunks >= 3);
  assert.equal(text, whole.choices[0].message.content);
  assert.equal(finish, whole.choices[0].finish_reason);
  assert.ok(usage, "no usage chunk");
  assert.equal(usage.completion_tokens, whole.usage.completion_tokens);
  assert.equal(usage.prompt_tokens, whole.usage.prompt_tokens);
});

await check("chat, max_completion_tokens and stop", async () => {
  const r = await client.chat.completions.create({ model, messages, max_completion_tokens: 3, temperature: 0 });
  assert.equal(r.choices[0].finish_reason, "length");
  assert.equal(r.usage.completion_tokens, 3);
  const full = whole.choices[0].message.content;
  const cut = full.indexOf(" ", 3);
  if (cut > 0) {
    const word = full.slice(cut, cut + 3);
    const s = await client.chat.completions.create({ model, messages, max_tokens: 24, temperature: 0, stop: [word] });
    assert.equal(s.choices[0].finish_reason, "stop");
    assert.ok(!s.choices[0].message.content.includes(word));
    assert.equal(s.choices[0].message.content, full.slice(0, full.indexOf(word)));
  }
});

await check("chat, n = 2", async () => {
  const r = await client.chat.completions.create({ model, messages, max_tokens: 8, temperature: 0, n: 2 });
  assert.equal(r.choices.length, 2);
  assert.equal(r.choices[0].message.content, r.choices[1].message.content);
});

await check("completions, whole and streamed", async () => {
  const w = await client.completions.create({ model, prompt: "Once upon a time", max_tokens: 20, temperature: 0 });
  assert.equal(w.object, "text_completion");
  assert.ok(w.choices[0].text.length > 0);
  const stream = await client.completions.create({
    model, prompt: "Once upon a time", max_tokens: 20, temperature: 0, stream: true,
  });
  let text = "", finish = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.text ?? "";
    if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason;
  }
  assert.equal(text, w.choices[0].text);
  assert.equal(finish, w.choices[0].finish_reason);
});

await check("errors as the SDK's classes", async () => {
  await assert.rejects(client.chat.completions.create({ model, messages, max_tokens: -1 }), (e) => {
    assert.ok(e instanceof OpenAI.BadRequestError);
    assert.equal(e.status, 400);
    assert.equal(e.param, "max_tokens");
    return true;
  });
  await assert.rejects(client.chat.completions.create({ model: "gpt-4o", messages }), (e) => {
    assert.ok(e instanceof OpenAI.NotFoundError);
    assert.equal(e.code, "model_not_found");
    return true;
  });
});

await check("abort mid-stream, then serve again", async () => {
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model, messages, max_tokens: 200, temperature: 0, stream: true }, { signal: controller.signal });
  // The SDK ends the iteration quietly (or throws an AbortError) once aborted.
  let n = 0;
  try {
    for await (const chunk of stream) {
      if (++n === 3) controller.abort();
    }
  } catch (e) {
    assert.equal(e.name, "AbortError");
  }
  assert.ok(n >= 3 && n < 200, `read ${n} chunks`);
  const again = await client.chat.completions.create({ model, messages, max_tokens: 24, temperature: 0 });
  assert.equal(again.choices[0].message.content, whole.choices[0].message.content);
});

console.log(`sdk: ${checks} checks passed`);

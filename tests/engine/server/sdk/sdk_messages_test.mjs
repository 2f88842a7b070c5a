// The official Anthropic Node.js SDK against `burrow-cli serve --api-key KEY`
// on a random-weight model (started by tst_serve_sdk): POST /v1/messages
// whole and streamed (the SDK's own stream accumulator gives the same
// message), a system prompt, the key as x-api-key, a forced tool_use whose
// input validates, a tool_result sent back, and errors in Anthropic's shape.
//   node sdk_messages_test.mjs http://127.0.0.1:PORT MODEL_ID KEY
import Anthropic from "@anthropic-ai/sdk";
import assert from "node:assert/strict";

const [baseURL, model, apiKey] = process.argv.slice(2);
const client = new Anthropic({ baseURL, apiKey, maxRetries: 0, timeout: 120000 });
let checks = 0;
const check = async (name, fn) => {
  await fn();
  checks++;
  console.log(`ok ${name}`);
};

const messages = [{ role: "user", content: "Once upon a time" }];
let whole;
await check("messages, whole", async () => {
  whole = await client.messages.create({ model, max_tokens: 16, temperature: 0, system: "Tell a story.", messages });
  assert.equal(whole.type, "message");
  assert.equal(whole.role, "assistant");
  assert.match(whole.id, /^msg_/);
  assert.ok(["end_turn", "max_tokens"].includes(whole.stop_reason));
  assert.ok(whole.usage.input_tokens > 0);
  assert.ok(whole.usage.output_tokens > 0 && whole.usage.output_tokens <= 16);
  assert.ok(whole.content.every((b) => b.type === "text"));
});

await check("messages, streamed: the same message", async () => {
  const stream = client.messages.stream({ model, max_tokens: 16, temperature: 0, system: "Tell a story.", messages });
  const types = [];
  stream.on("streamEvent", (e) => types.push(e.type));
  const final = await stream.finalMessage();
  assert.equal(types[0], "message_start");
  assert.equal(types[types.length - 1], "message_stop");
  assert.deepEqual(final.content, whole.content);
  assert.equal(final.stop_reason, whole.stop_reason);
  assert.equal(final.usage.output_tokens, whole.usage.output_tokens);
});

const tools = [{
  name: "get_weather", description: "Weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string", minLength: 1, maxLength: 10 },
    unit: { enum: ["c", "f"] } }, required: ["city", "unit"] },
}];
const validInput = (input) => {
  assert.deepEqual(Object.keys(input).sort(), ["city", "unit"]);
  assert.ok([...input.city].length >= 1 && [...input.city].length <= 10);
  assert.ok(["c", "f"].includes(input.unit));
};
let called;
await check("tool_choice tool: a tool_use block whose input validates, whole and streamed", async () => {
  const req = { model, max_tokens: 200, temperature: 0, messages: [{ role: "user", content: "Weather in Oslo?" }],
    tools, tool_choice: { type: "tool", name: "get_weather" } };
  called = await client.messages.create(req);
  assert.equal(called.stop_reason, "tool_use");
  const use = called.content.find((b) => b.type === "tool_use");
  assert.ok(use, JSON.stringify(called.content));
  assert.equal(use.name, "get_weather");
  assert.match(use.id, /^toolu_/);
  validInput(use.input);
  const stream = client.messages.stream(req);
  let partial = "", pieces = 0;
  stream.on("streamEvent", (e) => {
    if (e.type === "content_block_delta" && e.delta.type === "input_json_delta") {
      partial += e.delta.partial_json;
      pieces++;
    }
  });
  const streamed = await stream.finalMessage();
  const s = streamed.content.find((b) => b.type === "tool_use");
  assert.deepEqual(s.input, use.input);
  // The input streams as the model writes it: several input_json_delta
  // events whose text parses to the same input.
  assert.ok(pieces > 1, `the input came in ${pieces} delta(s)`);
  assert.deepEqual(JSON.parse(partial), use.input);
  assert.equal(streamed.stop_reason, "tool_use");
});

await check("a tool_result goes back", async () => {
  const use = called.content.find((b) => b.type === "tool_use");
  const r = await client.messages.create({
    model, max_tokens: 8, temperature: 0, tools,
    messages: [{ role: "user", content: "Weather in Oslo?" }, { role: "assistant", content: called.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "3 degrees" }] }],
  });
  assert.ok(r.usage.input_tokens > called.usage.input_tokens);
});

await check("errors in Anthropic's shape", async () => {
  await assert.rejects(client.messages.create({
    model, max_tokens: 8, messages: [{ role: "user", content: [{ type: "image", source: { type: "url", url: "x" } }] }],
  }), (e) => {
    assert.ok(e instanceof Anthropic.BadRequestError);
    assert.equal(e.error.type, "error");
    assert.equal(e.error.error.type, "invalid_request_error");
    assert.match(e.error.error.message, /image/);
    return true;
  });
  const wrong = new Anthropic({ baseURL, apiKey: "wrong", maxRetries: 0 });
  await assert.rejects(wrong.messages.create({ model, max_tokens: 8, messages }), (e) => {
    assert.ok(e instanceof Anthropic.AuthenticationError);
    return true;
  });
});

console.log(`sdk messages: ${checks} checks passed`);

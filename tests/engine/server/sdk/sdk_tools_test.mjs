// The official OpenAI Node.js SDK against `burrow-cli serve` on a
// random-weight model (started by tst_serve_sdk): tool calls forced by
// tool_choice (required, a named function) whole and streamed, the tool
// result sent back, response_format json_schema / json_object, logprobs on
// chat and completions, an unsupported schema refused; and the Responses
// API (text whole and streamed, a forced function call and its output sent
// back, text.format json_schema, previous_response_id refused).
//   node sdk_tools_test.mjs http://127.0.0.1:PORT/v1 MODEL_ID
// A random-weight model writes anything; the grammar must still make every
// forced call and schema reply valid. Validity is checked here against the
// schemas, by code written for these schemas (not the server's).
import OpenAI from "openai";
import assert from "node:assert/strict";

const [baseURL, model] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: "none", maxRetries: 0, timeout: 120000 });
let checks = 0;
const check = async (name, fn) => {
  await fn();
  checks++;
  console.log(`ok ${name}`);
};

const weather = {
  type: "object",
  properties: {
    city: { type: "string", minLength: 1, maxLength: 12 },
    unit: { enum: ["celsius", "fahrenheit"] },
    days: { type: "integer" },
    hourly: { type: "boolean" },
  },
  required: ["city", "unit", "days"],
  additionalProperties: false,
};
const tools = [
  { type: "function", function: { name: "get_weather", description: "Weather for a city", parameters: weather, strict: true } },
  { type: "function", function: { name: "get_time", description: "Time in a zone",
    parameters: { type: "object", properties: { zone: { type: "string", maxLength: 8 } }, required: ["zone"] } } },
];
const messages = [{ role: "user", content: "What is the weather in Paris?" }];

const codePoints = (s) => [...s].length;
function validWeather(args) {
  assert.deepEqual(Object.keys(args).filter((k) => !["city", "unit", "days", "hourly"].includes(k)), []);
  assert.equal(typeof args.city, "string");
  assert.ok(codePoints(args.city) >= 1 && codePoints(args.city) <= 12, `city ${args.city}`);
  assert.ok(["celsius", "fahrenheit"].includes(args.unit), `unit ${args.unit}`);
  assert.ok(Number.isInteger(args.days), `days ${args.days}`);
  if ("hourly" in args) assert.equal(typeof args.hourly, "boolean");
}
function validTime(args) {
  assert.deepEqual(Object.keys(args).filter((k) => k !== "zone"), []);
  assert.equal(typeof args.zone, "string");
  assert.ok(codePoints(args.zone) <= 8);
}
function validCall(call) {
  const args = JSON.parse(call.function.arguments);
  if (call.function.name === "get_weather") validWeather(args);
  else if (call.function.name === "get_time") validTime(args);
  else assert.fail(`unknown tool ${call.function.name}`);
}

let forced;
await check("tool_choice required, whole: a valid call", async () => {
  for (let seed = 1; seed <= 6; seed++) {
    const r = await client.chat.completions.create({
      model, messages, tools, tool_choice: "required", max_tokens: 300, temperature: 1, seed,
    });
    const c = r.choices[0];
    assert.equal(c.finish_reason, "tool_calls");
    assert.equal(c.message.content, null);
    assert.equal(c.message.tool_calls.length, 1);
    assert.equal(c.message.tool_calls[0].type, "function");
    assert.match(c.message.tool_calls[0].id, /^call_/);
    validCall(c.message.tool_calls[0]);
    if (seed === 1) forced = r;
  }
});

await check("tool_choice named, streamed: id and name first, arguments in several deltas", async () => {
  const stream = await client.chat.completions.create({
    model, messages, tools, tool_choice: { type: "function", function: { name: "get_weather" } },
    max_tokens: 300, temperature: 0, stream: true,
  });
  const calls = [];
  let finish = null, content = "", pieces = 0;
  for await (const chunk of stream) {
    const c = chunk.choices[0];
    if (!c) continue;
    content += c.delta.content ?? "";
    for (const d of c.delta.tool_calls ?? []) {
      if (!calls[d.index]) {
        assert.ok(d.id && d.function?.name, "the first delta of a call has its id and name");
        assert.equal(d.function.arguments, "", "the first delta's arguments are empty");
        calls[d.index] = { id: d.id, function: { name: d.function.name, arguments: "" } };
      } else {
        assert.equal(d.id, undefined, "later deltas carry only the index and a piece");
        assert.ok(d.function.arguments.length > 0);
        pieces++;
      }
      calls[d.index].function.arguments += d.function?.arguments ?? "";
    }
    if (c.finish_reason) finish = c.finish_reason;
  }
  assert.equal(finish, "tool_calls");
  assert.equal(content, "");
  assert.equal(calls.length, 1);
  assert.equal(calls[0].function.name, "get_weather");
  // The arguments stream as the model writes them, not in one piece at the end.
  assert.ok(pieces > 1, `the arguments came in ${pieces} delta(s)`);
  validCall(calls[0]);
  // The same request whole gives the same call (greedy).
  const whole = await client.chat.completions.create({
    model, messages, tools, tool_choice: { type: "function", function: { name: "get_weather" } },
    max_tokens: 300, temperature: 0,
  });
  assert.equal(whole.choices[0].message.tool_calls[0].function.arguments, calls[0].function.arguments);
  assert.deepEqual(JSON.parse(calls[0].function.arguments), JSON.parse(whole.choices[0].message.tool_calls[0].function.arguments));
});

await check("the tool's result goes back through the template", async () => {
  const call = forced.choices[0].message.tool_calls[0];
  const r = await client.chat.completions.create({
    model, tools, max_tokens: 8, temperature: 0,
    messages: [...messages, forced.choices[0].message,
      { role: "tool", tool_call_id: call.id, content: JSON.stringify({ temperature: 21 }) }],
  });
  assert.ok(["stop", "length", "tool_calls"].includes(r.choices[0].finish_reason));
  assert.ok(r.usage.prompt_tokens > forced.usage.prompt_tokens);
});

await check("tools with auto, whole and streamed: the same reply", async () => {
  const w = await client.chat.completions.create({ model, messages, tools, max_tokens: 16, temperature: 0 });
  const stream = await client.chat.completions.create({ model, messages, tools, max_tokens: 16, temperature: 0, stream: true });
  let text = "", n = 0;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? "";
    n += chunk.choices[0]?.delta?.tool_calls?.length ?? 0;
  }
  assert.equal(text, w.choices[0].message.content ?? "");
  assert.equal(n > 0, (w.choices[0].message.tool_calls ?? []).length > 0);
});

const report = {
  type: "object",
  properties: {
    title: { type: "string", maxLength: 10 },
    rating: { type: "integer" },
    tags: { type: "array", items: { enum: ["fun", "sad", "long"] }, minItems: 1, maxItems: 2 },
    score: { type: "number" },
    extra: { anyOf: [{ type: "null" }, { type: "boolean" }] },
  },
  required: ["title", "rating", "tags", "score", "extra"],
  additionalProperties: false,
};
await check("response_format json_schema: the reply validates", async () => {
  for (let seed = 1; seed <= 4; seed++) {
    const r = await client.chat.completions.create({
      model, messages: [{ role: "user", content: "Rate a story" }], max_tokens: 300, temperature: 1, seed,
      response_format: { type: "json_schema", json_schema: { name: "report", schema: report, strict: true } },
    });
    assert.equal(r.choices[0].finish_reason, "stop");
    const v = JSON.parse(r.choices[0].message.content);
    assert.deepEqual(Object.keys(v), ["title", "rating", "tags", "score", "extra"]);
    assert.ok(typeof v.title === "string" && codePoints(v.title) <= 10);
    assert.ok(Number.isInteger(v.rating));
    assert.ok(Array.isArray(v.tags) && v.tags.length >= 1 && v.tags.length <= 2);
    v.tags.forEach((t) => assert.ok(["fun", "sad", "long"].includes(t)));
    assert.equal(typeof v.score, "number");
    assert.ok(v.extra === null || typeof v.extra === "boolean");
  }
});

await check("response_format json_object: a finished reply is an object", async () => {
  const r = await client.chat.completions.create({
    model, messages, max_tokens: 400, temperature: 0, response_format: { type: "json_object" },
  });
  const text = r.choices[0].message.content;
  assert.ok(text.startsWith("{"));
  if (r.choices[0].finish_reason === "stop") {
    const v = JSON.parse(text);
    assert.equal(typeof v, "object");
    assert.ok(!Array.isArray(v));
  }
});

await check("logprobs: one entry per token, greedy picks the top one", async () => {
  const r = await client.chat.completions.create({
    model, messages, max_tokens: 12, temperature: 0, logprobs: true, top_logprobs: 3,
  });
  const entries = r.choices[0].logprobs.content;
  assert.equal(entries.length, r.usage.completion_tokens);
  let bytes = [];
  for (const e of entries) {
    assert.ok(e.logprob <= 0);
    assert.equal(e.top_logprobs.length, 3);
    assert.equal(e.token, e.top_logprobs[0].token);
    assert.equal(e.logprob, e.top_logprobs[0].logprob);
    for (let i = 1; i < 3; i++) assert.ok(e.top_logprobs[i - 1].logprob >= e.top_logprobs[i].logprob);
    assert.ok(e.top_logprobs.reduce((s, t) => s + Math.exp(t.logprob), 0) <= 1.0001);
    bytes = bytes.concat(e.bytes);
  }
  assert.equal(Buffer.from(bytes).toString("utf8"), r.choices[0].message.content);
  const stream = await client.chat.completions.create({
    model, messages, max_tokens: 12, temperature: 0, logprobs: true, top_logprobs: 3, stream: true,
  });
  const streamed = [];
  for await (const chunk of stream) streamed.push(...(chunk.choices[0]?.logprobs?.content ?? []));
  assert.deepEqual(streamed.map((e) => e.token), entries.map((e) => e.token));
  const c = await client.completions.create({ model, prompt: "Once upon a time", max_tokens: 6, temperature: 0, logprobs: 2 });
  assert.equal(c.choices[0].logprobs.tokens.length, c.usage.completion_tokens);
  assert.equal(c.choices[0].logprobs.top_logprobs[0] && Object.keys(c.choices[0].logprobs.top_logprobs[0]).length, 2);
});

await check("a schema Burrow cannot compile: 400 naming the keyword", async () => {
  await assert.rejects(client.chat.completions.create({
    model, messages, response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "string", pattern: "^a$" } } },
  }), (e) => {
    assert.ok(e instanceof OpenAI.BadRequestError);
    assert.match(e.message, /pattern/);
    return true;
  });
  await assert.rejects(client.chat.completions.create({
    model, messages, tool_choice: "required",
    tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { n: { type: "integer", minimum: 1 } } } } }],
  }), (e) => {
    assert.ok(e instanceof OpenAI.BadRequestError);
    assert.match(e.message, /minimum/);
    return true;
  });
});

await check("hostile: 3 MB of arguments, malformed arguments, 300 tools", async () => {
  const big = "x".repeat(3 * 1024 * 1024);
  const turn = (args) => [...messages,
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: args } }] },
    { role: "tool", tool_call_id: "call_1", content: "ok" }];
  // Answered (this model's fallback format writes no tool calls, so the
  // prompt stays small) or refused as too long; never a crash.
  try {
    const r = await client.chat.completions.create({ model, tools, max_tokens: 4, temperature: 0,
      messages: turn(JSON.stringify({ city: big })) });
    assert.equal(r.choices.length, 1);
  } catch (e) {
    assert.ok(e instanceof OpenAI.BadRequestError, String(e));
    assert.equal(e.code, "context_length_exceeded");
  }
  const r = await client.chat.completions.create({ model, tools, max_tokens: 4, temperature: 0, messages: turn("{not json") });
  assert.equal(r.choices.length, 1);
  const many = Array.from({ length: 300 }, (_, i) => ({ type: "function", function: { name: `f${i}` } }));
  await assert.rejects(client.chat.completions.create({ model, messages, tools: many }), (e) => {
    assert.ok(e instanceof OpenAI.BadRequestError);
    assert.equal(e.param, "tools");
    return true;
  });
  const again = await client.chat.completions.create({ model, messages, max_tokens: 2, temperature: 0 });
  assert.equal(again.choices.length, 1);
});

// The Responses API (POST /v1/responses) with the same SDK.
await check("responses: text whole and streamed, the same output", async () => {
  const req = { model, input: "Once upon a time", instructions: "Tell a story.", max_output_tokens: 12, temperature: 0 };
  const whole = await client.responses.create(req);
  assert.equal(whole.object, "response");
  assert.match(whole.id, /^resp_/);
  assert.ok(["completed", "incomplete"].includes(whole.status));
  assert.equal(whole.output[0].type, "message");
  assert.ok(whole.output_text.length > 0);
  assert.equal(whole.usage.output_tokens <= 12, true);
  const stream = client.responses.stream(req);
  const types = [];
  stream.on("event", (e) => types.push(e.type));
  const final = await stream.finalResponse();
  assert.equal(types[0], "response.created");
  // The SDK adds output_text to created responses only: compare the items' text.
  const textOf = (r) => r.output.filter((i) => i.type === "message").flatMap((i) => i.content).map((c) => c.text).join("");
  assert.equal(textOf(final), whole.output_text);
  assert.equal(textOf(whole), whole.output_text);
  // The last event says how it ended (the SDK's snapshot keeps in_progress for an incomplete one).
  assert.equal(types[types.length - 1], `response.${whole.status}`);
  assert.ok(final.output.length > 0);
});

await check("responses: a forced function call, its output sent back", async () => {
  const rtools = tools.map((t) => ({ type: "function", name: t.function.name, description: t.function.description,
    parameters: t.function.parameters }));
  const input = [{ role: "user", content: "Weather in Paris?" }];
  const r = await client.responses.create({ model, input, tools: rtools, tool_choice: "required", max_output_tokens: 300,
    temperature: 0 });
  const call = r.output.find((i) => i.type === "function_call");
  assert.ok(call, JSON.stringify(r.output));
  assert.match(call.call_id, /^call_/);
  validCall({ function: { name: call.name, arguments: call.arguments } });
  const stream = client.responses.stream({ model, input, tools: rtools, tool_choice: "required",
    max_output_tokens: 300, temperature: 0 });
  let deltas = "", pieces = 0, added = null;
  stream.on("event", (e) => {
    // (The SDK goes on filling the item it hands here: copy it as it came.)
    if (e.type === "response.output_item.added" && e.item.type === "function_call") added = { ...e.item };
    if (e.type === "response.function_call_arguments.delta") {
      assert.ok(added, "the item comes before its arguments");
      deltas += e.delta;
      pieces++;
    }
  });
  const streamed = await stream.finalResponse();
  const sc = streamed.output.find((i) => i.type === "function_call");
  assert.equal(added.name, call.name);
  assert.equal(added.arguments, "");
  assert.ok(pieces > 1, `the arguments came in ${pieces} delta(s)`);
  assert.equal(deltas, call.arguments);
  assert.equal(sc.arguments, call.arguments);
  const next = await client.responses.create({ model, tools: rtools, max_output_tokens: 8, temperature: 0,
    input: [...input, call, { type: "function_call_output", call_id: call.call_id, output: "21 degrees" }] });
  assert.ok(next.usage.input_tokens > r.usage.input_tokens);
});

await check("responses: text.format json_schema validates; previous_response_id refused", async () => {
  const r = await client.responses.create({ model, input: "Rate a story", max_output_tokens: 300, temperature: 1, seed: 3,
    text: { format: { type: "json_schema", name: "report", schema: report, strict: true } } });
  assert.equal(r.status, "completed");
  const v = JSON.parse(r.output_text);
  assert.deepEqual(Object.keys(v), ["title", "rating", "tags", "score", "extra"]);
  assert.ok(v.tags.length >= 1 && v.tags.length <= 2 && Number.isInteger(v.rating));
  await assert.rejects(client.responses.create({ model, input: "x", previous_response_id: "resp_1" }), (e) => {
    assert.ok(e instanceof OpenAI.BadRequestError);
    assert.equal(e.param, "previous_response_id");
    return true;
  });
});

console.log(`sdk tools: ${checks} checks passed`);

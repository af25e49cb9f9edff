import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { callToolThenAnswer, startFakeOpenAI, toolCallsMade, toolOutputsSent, type FakeOpenAI } from "@/tests/fake-openai-server";

// The local model server the adapter tests run the agent SDKs against, checked with the real
// `openai` client: both APIs, as JSON and as server-sent events, read back the same way.

const servers: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(...args: Parameters<typeof startFakeOpenAI>) {
  const server = await startFakeOpenAI(...args);
  servers.push(server);
  return { server, client: new OpenAI({ baseURL: server.baseURL, apiKey: "sk-local-test", maxRetries: 0 }) };
}

const CALL = { name: "refund_invoice", arguments: '{"invoice_number":"INV-1044","amount_minor":25000}' };

describe("the local model server", () => {
  it("chat completions: a streamed tool call reassembles, and the tool's output sent back is read as the conversation", async () => {
    const { server, client } = await serve(callToolThenAnswer(CALL));
    const stream = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "refund" }], stream: true, stream_options: { include_usage: true } });
    let id = "";
    let name = "";
    let args = "";
    let finish: string | null = null;
    let usage = 0;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      id ||= call?.id ?? "";
      name ||= call?.function?.name ?? "";
      args += call?.function?.arguments ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage += chunk.usage?.total_tokens ?? 0;
    }
    expect({ name, args, finish, usage }).toEqual({ name: CALL.name, args: CALL.arguments, finish: "tool_calls", usage: 2 });

    const answer = await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "refund" },
        { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: args } }] },
        { role: "tool", tool_call_id: id, content: '{"refund_id":"r1"}' },
      ],
    });
    expect(answer.choices[0].message.content).toBe('The tool answered: {"refund_id":"r1"}');
    expect(server.requests.map((r) => [r.api, r.stream])).toEqual([["chat", true], ["chat", false]]);
    expect(toolCallsMade(server)).toEqual([{ id, ...CALL }]);
    expect(toolOutputsSent(server).get(id)).toBe('{"refund_id":"r1"}');
  });

  it("Responses API: a function call as JSON and as events, then the answer after its function_call_output", async () => {
    const { server, client } = await serve(callToolThenAnswer(CALL));
    const first = await client.responses.create({ model: "m", instructions: "help", input: "refund" });
    const call = first.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: CALL.name, arguments: CALL.arguments });

    const events = await client.responses.create({ model: "m", input: "refund", stream: true });
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | null = null;
    for await (const event of events) {
      types.push(event.type);
      if (event.type === "response.completed") completed = event.response;
    }
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.function_call_arguments.delta");
    expect(completed?.output.find((item) => item.type === "function_call")).toMatchObject({ name: CALL.name, arguments: CALL.arguments });

    const callId = call?.type === "function_call" ? call.call_id : "";
    const answer = await client.responses.create({
      model: "m",
      input: [
        { role: "user", content: "refund" },
        { type: "function_call", call_id: callId, name: CALL.name, arguments: CALL.arguments },
        { type: "function_call_output", call_id: callId, output: "A reviewer rejected this call: not today" },
      ],
    });
    expect(answer.output_text).toBe("The tool answered: A reviewer rejected this call: not today");
    expect(server.requests[0].conversation).toEqual([{ role: "system", text: "help" }, { role: "user", text: "refund" }]);
    expect(toolOutputsSent(server).get(callId)).toBe("A reviewer rejected this call: not today");
  });

  it("the failure modes apply to the Responses API too", async () => {
    const { server, client } = await serve([{ content: "ok" }], { kind: "error", status: 503 });
    await expect(client.responses.create({ model: "m", input: "hi" })).rejects.toMatchObject({ status: 503 });
    server.setMode({ kind: "ok" });
    expect((await client.responses.create({ model: "m", input: "hi" })).output_text).toBe("ok");
  });
});

// The Vercel AI SDK (ai, @ai-sdk/openai) against an OpenAI-compatible endpoint: the common
// rows of tests/interop/test_clients.py, with the chat-completions model (openai.chat) and
// the Responses model (openai.responses). Only the base URL and the key differ from a call
// to OpenAI (OPENAI_BASE_URL, OPENAI_API_KEY). Prints the outcomes as one JSON object.
import { createOpenAI } from "@ai-sdk/openai";
import { embedMany, generateText, Output, stepCountIs, streamText, tool } from "ai";
import { readFileSync } from "node:fs";
import { z } from "zod";

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL,
                              apiKey: process.env.OPENAI_API_KEY });
const MODEL = process.env.INTEROP_MODEL ?? "fast";
const toolCalls = [];
const weather = tool({
  description: "Get the weather for a city.",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => { toolCalls.push(city); return `sunny in ${city}`; },
});
const City = z.object({ name: z.string(), population: z.number().int() });

function rowsFor(label, model) {
  return {
    [`chat (${label})`]: async () => {
      const r = await generateText({ model, prompt: "Say hello.", maxRetries: 0 });
      return { text: r.text, finish_reason: r.finishReason,
               usage: { input_tokens: r.usage.inputTokens, output_tokens: r.usage.outputTokens } };
    },
    [`stream (${label})`]: async () => {
      const r = streamText({ model, prompt: "Say hello.", maxRetries: 0 });
      const pieces = [];
      for await (const piece of r.textStream) pieces.push(piece);
      return { text: pieces.join(""), pieces: pieces.filter((p) => p).length,
               finish_reason: await r.finishReason };
    },
    [`tools (${label})`]: async () => {
      const r = await generateText({ model, prompt: "What is the weather in Paris?",
                                     tools: { get_weather: weather }, stopWhen: stepCountIs(4),
                                     maxRetries: 0 });
      const calls = r.steps.flatMap((s) => s.toolCalls.map((c) => c.toolName));
      return { calls, ran: toolCalls.length, text: r.text };
    },
    [`parse (${label})`]: async () => {
      const r = await generateText({ model, prompt: "Name a city and its population.",
                                     output: Output.object({ schema: City }), maxRetries: 0 });
      const city = City.parse(r.output);
      return { type: "City", city };
    },
  };
}

const rows = {
  ...rowsFor("chat model", openai.chat(MODEL)),
  ...rowsFor("Responses model", openai.responses(MODEL)),
  embeddings: async () => {
    const r = await embedMany({ model: openai.embedding(MODEL),
                                values: ["first text", "second text"], maxRetries: 0 });
    return { count: r.embeddings.length,
             lengths: [...new Set(r.embeddings.map((v) => v.length))].sort() };
  },
  // The AI SDK has no call that lists a provider's models
  versions: async () => Object.fromEntries(["ai", "@ai-sdk/openai", "zod"].map((name) => [
    name, JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8")).version])),
};

const outcomes = {};
for (const [name, row] of Object.entries(rows)) {
  toolCalls.length = 0;
  try {
    outcomes[name] = { ok: true, value: await row() };
  } catch (error) {
    outcomes[name] = { ok: false, error: `${error?.name}: ${error?.message}`.slice(0, 2000),
                       trace: String(error?.stack ?? "").slice(-3000) };
  }
}
process.stdout.write(JSON.stringify(outcomes) + "\n");

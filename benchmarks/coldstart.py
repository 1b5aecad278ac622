"""Cold start to the first reply: what one fresh process does before anything else.

    python benchmarks/coldstart.py <side> <family> <base_url>

``side`` is ``ours`` (aisuite_like on the SDK transport), ``ours_native`` (aisuite_like with
``transport="native"``) or ``raw`` (the vendor SDK by hand). The clock starts before the first
import of the library or the SDK and stops when the first reply's text is read: import, client
construction, the first request (connection included) and building the reply. Interpreter
start-up is the same on every side and is left out. Prints one ``RESULT {json}`` line: the
wall time and the CPU time of the process over that span (the CPU time moves far less with
the load of a shared machine).

Nothing but ``time`` is imported before the clock starts, so this file stays apart from
workloads.py (whose module imports asyncio, json and statistics).
"""

import time

T0, CPU0 = time.perf_counter(), time.process_time()

import sys  # noqa: E402  (already loaded by the interpreter: free)

SYSTEM = "You are a helpful assistant. Answer in one short sentence."
USER = "What is the capital of France?"
MAX_TOKENS = 1024
MODELS = {"openai": "gpt-bench", "anthropic": "claude-bench", "google": "gemini-bench",
          "bedrock": "bedrock-bench"}
AWS = {"region_name": "us-east-1", "aws_access_key_id": "AKIDBENCHEXAMPLE",
       "aws_secret_access_key": "bench-secret"}


def ours(family: str, base: str, native: bool) -> str:
    import aisuite_like as ai

    if family == "bedrock":
        config = {**AWS, "endpoint_url": base, "max_retries": 0}
    else:
        config = {"api_key": "bench-key", "max_retries": 0,
                  "base_url": base + "/v1" if family == "openai" else base}
        if family == "openai":  # OpenAI's own rules, as on api.openai.com (no warning)
            config["openai_proxy"] = True
        if native:
            config["transport"] = "native"
    client = ai.Client({family: config})
    kwargs = {"max_tokens": MAX_TOKENS} if family == "anthropic" else {}
    return client.chat.completions.create(
        model=f"{family}:{MODELS[family]}", messages=[
            {"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}],
        **kwargs).choices[0].message.content


def raw(family: str, base: str) -> str:
    if family == "openai":
        import openai

        client = openai.OpenAI(api_key="bench-key", base_url=base + "/v1", max_retries=0)
        return client.chat.completions.create(model=MODELS[family], messages=[
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER}]).choices[0].message.content
    if family == "anthropic":
        import anthropic

        client = anthropic.Anthropic(api_key="bench-key", base_url=base, max_retries=0)
        return client.messages.create(model=MODELS[family], max_tokens=MAX_TOKENS,
                                      system=SYSTEM, messages=[
                                          {"role": "user", "content": USER}]).content[0].text
    if family == "google":
        from google import genai
        from google.genai import types

        client = genai.Client(api_key="bench-key", http_options=types.HttpOptions(
            base_url=base, retry_options=types.HttpRetryOptions(attempts=1)))
        return client.models.generate_content(model=MODELS[family], contents=USER,
                                              config=types.GenerateContentConfig(
                                                  system_instruction=SYSTEM)).text
    import botocore.config
    import botocore.session

    client = botocore.session.get_session().create_client(
        "bedrock-runtime", endpoint_url=base, **AWS, config=botocore.config.Config(
            retries={"total_max_attempts": 1, "mode": "standard"}))
    reply = client.converse(modelId=MODELS[family], system=[{"text": SYSTEM}],
                            messages=[{"role": "user", "content": [{"text": USER}]}])
    return reply["output"]["message"]["content"][0]["text"]


def main() -> int:
    side, family, base = sys.argv[1:4]
    text = raw(family, base) if side == "raw" else ours(family, base, side == "ours_native")
    elapsed, cpu = time.perf_counter() - T0, time.process_time() - CPU0
    if text != "The capital of France is Paris.":
        print(f"unexpected reply text: {text!r}", file=sys.stderr)
        return 1
    import json

    loaded = sorted(m for m in ("openai", "anthropic", "google.genai", "botocore", "httpx",
                                "httpx2", "aiohttp", "pydantic") if m in sys.modules)
    print("RESULT " + json.dumps({"value": elapsed, "cpu": cpu, "unit": "s",
                                   "loaded": loaded}),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

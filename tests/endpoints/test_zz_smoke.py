def test_smoke():
    import json, httpx, respx, asyncio, base64
    import aisuite_like as ai
    KEY="sk-test-secret-key-1234567890"
    with respx.mock(using="httpcore2") as api:
        gen = api.post("https://api.openai.com/v1/images/generations").mock(return_value=httpx.Response(200, json={"created": 1, "data":[{"b64_json": base64.b64encode(b"png").decode()}], "usage": {"input_tokens": 5, "input_tokens_details": {"image_tokens": 0, "text_tokens": 5}, "output_tokens": 100, "total_tokens": 105}}, headers={"x-request-id":"req_1"}))
        sp = api.post("https://api.openai.com/v1/audio/speech").mock(return_value=httpx.Response(200, content=b"ID3audio", headers={"content-type":"audio/mpeg"}))
        mod = api.post("https://api.openai.com/v1/moderations").mock(return_value=httpx.Response(200, json={"id":"modr-1","model":"omni-moderation-latest","results":[{"flagged":False,"categories":{"hate":False},"category_scores":{"hate":0.01},"category_applied_input_types":{"hate":["text"]}}]}))
        fc = api.post("https://api.openai.com/v1/files").mock(return_value=httpx.Response(200, json={"id":"file-abc","object":"file","bytes":3,"created_at":1,"filename":"a.txt","purpose":"user_data","status":"processed"}))
        fl = api.get("https://api.openai.com/v1/files").mock(return_value=httpx.Response(200, json={"object":"list","data":[{"id":"file-abc","object":"file","bytes":3,"created_at":1,"filename":"a.txt","purpose":"user_data"}],"has_more":False}))
        c = ai.Client(provider_configs={"openai": {"api_key": KEY}})
        r = c.images.generate(model="openai:gpt-image-1", prompt="a cat", n=1)
        print(r, r.usage.cost)
        print(json.loads(gen.calls.last.request.content))
        import openai
        print(openai.types.ImagesResponse.model_validate(r.model_dump()))
        raw = c.images.with_raw_response.generate(model="openai:gpt-image-1", prompt="a cat")
        print(raw.request_id, raw.parse().data[0].b64_json)
        s = c.audio.speech.create(model="openai:tts-1", voice="alloy", input="hi")
        print(s, s.content, json.loads(sp.calls.last.request.content))
        with c.audio.speech.with_streaming_response.create(model="openai:tts-1", voice="alloy", input="hi") as resp:
            print(b"".join(resp.iter_bytes()))
        m = c.moderations.create(model="openai:omni-moderation-latest", input="hi")
        print(m.results[0].flagged, openai.types.ModerationCreateResponse.model_validate(m.model_dump()).results[0].categories.hate)
        f = c.files.create(file=("a.txt", b"abc"), purpose="user_data")
        print(f, fc.calls.last.request.content[:300])
        print(list(c.files.list()))
        async def main():
            a = ai.AsyncClient(provider_configs={"openai": {"api_key": KEY}})
            r = await a.images.generate(model="openai:gpt-image-1", prompt="a cat")
            print("async", r.data[0].b64_json)
            async with a.audio.speech.with_streaming_response.create(model="openai:tts-1", voice="alloy", input="hi") as resp:
                print([c async for c in resp.iter_bytes()])
            print([f async for f in a.files.list()], await a.files.list())
        asyncio.run(main())
        try:
            c.images.generate(model="anthropic:claude", prompt="x")
        except Exception as e: print(type(e).__name__, e)

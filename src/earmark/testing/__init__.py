"""Test support that ships with earmark: models and servers built offline, in the test.

`tiny_whisper.build_tiny_whisper` writes a tiny multilingual CTranslate2 Whisper with
numpy alone; `loopback.LoopbackServer` is a scripted HTTP server on 127.0.0.1.
Nothing here is imported by `import earmark`.
"""

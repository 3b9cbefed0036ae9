"""earmark: an open, reproducible, language-aware evaluation harness for speech recognition.

`import earmark` stays cheap on purpose: no torch, transformers, ctranslate2, ray or
pandas is imported here or on the scoring path (tests pin this).
"""

__version__ = "0.1.0"

def test_dbg(tiny_whisper_hf, clips):
    import torch
    from transformers import AutoModelForSpeechSeq2Seq, AutoProcessor
    p = AutoProcessor.from_pretrained(str(tiny_whisper_hf)); m = AutoModelForSpeechSeq2Seq.from_pretrained(str(tiny_whisper_hf))
    f = p.feature_extractor([c.audio for c in clips], sampling_rate=16000, return_tensors="pt").input_features
    for lang in ["zh", None]:
        print(lang, m.generate(f, language=lang, task="transcribe", max_new_tokens=4).tolist())
        print(lang, m.generate(f[:1], language=lang, task="transcribe", max_new_tokens=4).tolist())

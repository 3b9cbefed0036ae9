"""Output post-processors (formatters, script conversion) and their evaluation (seed 001).

A processor turns a transcript into a candidate text; a lexical guard delivers it only
when the words are unchanged; the evaluation measures acceptance, punctuation F1 raw vs
delivered, CER equality and determinism with clip bootstrap intervals. The Python entry
is `earmark.postprocess.api.postprocess_transcripts`.
"""

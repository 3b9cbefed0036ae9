"""`import earmark` and the scoring path must not pull in heavy runtimes."""

import subprocess
import sys

HEAVY = ("torch", "transformers", "ctranslate2", "ray", "pandas", "faster_whisper", "pyarrow")


def _imported_after(code: str) -> set[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    import json

    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_earmark_is_light() -> None:
    mods = _imported_after("import earmark")
    assert not [m for m in HEAVY if m in mods]


def test_cli_parser_is_light() -> None:
    mods = _imported_after("from earmark.cli import build_parser; build_parser()")
    assert not [m for m in HEAVY if m in mods]


def test_earmark_score_stays_light(tmp_path) -> None:
    data = tmp_path / "p.jsonl"
    data.write_text(
        '{"id":"a","reference":"我爱北京","hypothesis":"我爱南京","language":"zh"}\n'
        '{"id":"b","reference":"Hello there","hypothesis":"hello","language":"en"}\n',
        "utf-8",
    )
    code = (
        "from earmark.cli import main\n"
        f"assert main(['score', {str(data)!r}, '--normalizer', 'auto', '--bootstrap', '50',"
        f" '--out', {str(tmp_path / 'out')!r}, '--quiet', '--punctuation',"
        " '--critical-tokens']) == 0"
    )
    mods = _imported_after(code)
    assert not [m for m in HEAVY if m in mods]

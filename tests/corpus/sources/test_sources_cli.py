"""`earmark import` and `earmark fetch` through `earmark.cli.main`."""

from __future__ import annotations

import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from earmark.cli import main
from earmark.corpus.sources.fleurs import import_fleurs


def make_fleurs(tmp_path: Path) -> Path:
    folder = tmp_path / "ga_ie"
    (folder / "audio" / "test").mkdir(parents=True)
    (folder / "test.tsv").write_text(
        "1\ta.wav\tDia duit.\tdia duit\tx\t1600\tFEMALE\n2\tb.wav\tSlán.\tslán\tx\t1600\tMALE\n",
        encoding="utf-8",
    )
    sf.write(folder / "audio" / "test" / "a.wav", np.zeros(1600), 16000)
    return folder


def test_import_matches_the_api(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_fleurs(tmp_path)
    cli_out = tmp_path / "cli" / "m.jsonl"
    assert main(["import", "fleurs", str(folder), "--out", str(cli_out)]) == 0
    printed = capsys.readouterr().out
    assert "fleurs: 1 rows written" in printed
    assert "1 skipped (missing_audio=1)" in printed
    assert "skipped ga_ie_2_b (missing_audio)" in printed and "test.tsv:2" in printed
    api_out = tmp_path / "api" / "m.jsonl"
    import_fleurs(folder, api_out)
    assert cli_out.read_bytes() == api_out.read_bytes()


def test_import_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_fleurs(tmp_path)
    (folder / "test.tsv").write_text("1\ta.wav\tonly\n", encoding="utf-8")
    assert main(["import", "fleurs", str(folder), "--out", str(tmp_path / "m.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("earmark: error: ") and "test.tsv:1: field 'transcription'" in err
    assert (
        main(
            [
                "import",
                "kaldi",
                str(folder),
                "--out",
                str(tmp_path / "m.jsonl"),
                "--locale",
                "ga-IE",
            ]
        )
        == 2
    )
    assert "--locale does not apply to source 'kaldi'" in capsys.readouterr().err


def test_import_warns_without_licence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sf.write(tmp_path / "a.wav", np.zeros(160), 16000)
    (tmp_path / "nemo.json").write_text('{"audio_filepath": "a.wav", "text": "hi"}\n')
    code = main(
        [
            "import",
            "nemo",
            str(tmp_path / "nemo.json"),
            "--out",
            str(tmp_path / "m.jsonl"),
            "--language",
            "en",
        ]
    )
    assert code == 0
    assert "no licence declared" in capsys.readouterr().err


def test_fetch_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    for name in (
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
    ):
        monkeypatch.delenv(name, raising=False)
    wav = io.BytesIO()
    sf.write(wav, np.zeros(1600), 16000, format="WAV")
    sink = io.BytesIO()
    pq.write_table(
        pa.Table.from_pylist(
            [
                {
                    "id": 1,
                    "raw_transcription": "Dia duit.",
                    "transcription": "dia duit",
                    "gender": 1,
                    "num_samples": 1600,
                    "audio": {"bytes": wav.getvalue(), "path": "a.wav"},
                }
            ]
        ),
        sink,
    )
    body = sink.getvalue()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            if self.path != "/r1/ga_ie/test/0000.parquet":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}/{{revision}}"
        args = [
            "fetch",
            "fleurs",
            "--languages",
            "ga_ie",
            "--per-language",
            "1",
            "--out",
            str(tmp_path / "f"),
            "--base-url",
            base,
            "--revision",
            "r1",
        ]
        assert main(args) == 0
        assert "fleurs: 1 clips in" in capsys.readouterr().out
        assert main(args) == 0
        assert "ga_ie: already done (1 clips), skipped" in capsys.readouterr().out
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
    assert (tmp_path / "f" / "ga_ie" / "ga_ie_1_a.flac").is_file()

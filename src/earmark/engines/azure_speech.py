"""Microsoft Azure's speech-to-text REST API for short audio, as BlasBench ran it.

`POST {endpoint}/speech/recognition/conversation/cognitiveservices/v1?language=ga-IE&
format=detailed&profanity=raw` with the clip as 16 kHz PCM-16 WAV and the key in
`Ocp-Apim-Subscription-Key`. The endpoint is the region's host, e.g.
`https://westeurope.stt.speech.microsoft.com`. The transport is the HTTP backend's
(`earmark.engines.http_api`): the key is read from the environment at load and never
recorded, redirects are not followed, responses are bounded, each request has a deadline
and the host is resolved once for the egress guard.

What is scored and why:
- `text=display` (default) takes the best result's `Display` form, what the service
  shows a user (punctuated, numbers written as digits); `lexical` the spoken form
  (`Lexical`), `itn` the inverse-normalised one without punctuation (`ITN`). The row
  records which, and the normaliser does the rest, as for any system.
- `profanity=raw` (default) asks for the words as spoken: the service's default masks
  profanity with asterisks, which would be scored as substitutions.
- `RecognitionStatus` `NoMatch` (speech, nothing recognised) and `InitialSilenceTimeout`
  (no speech) are empty transcripts, recorded with the status; any other status
  (`BabbleTimeout`, `Error`, ...) is a failed clip with the reason code
  `azure_status:<status>`.
- The API takes a locale, never detects one: `locale=` on the arm (e.g. `ga-IE`), else
  the row's language tag when it carries a region (`ga-IE`); a clip with neither fails
  with `locale_needed` instead of being sent with a guess.
- The result's `Offset` and `Duration` (100 ns ticks) become one segment.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import urlencode

from earmark.engines.base import Segment
from earmark.engines.http_api import ClipFailure, HttpOptions, RemoteEngine, read_http_options
from earmark.engines.settings import SettingsReader
from earmark.engines.spec import ArmSpec
from earmark.results.codec import JSONObject, JSONValue

BACKEND = "azure-speech"
PATH = "/speech/recognition/conversation/cognitiveservices/v1"
DEFAULT_KEY_ENV = "AZURE_SPEECH_KEY"
#: The `NBest` field each `text=` choice reads.
TEXT_FIELDS = {"display": "Display", "lexical": "Lexical", "itn": "ITN"}
#: Statuses that mean nothing was recognised: an empty transcript, not a failure.
EMPTY_STATUSES = ("NoMatch", "InitialSilenceTimeout")
_TICKS = 10_000_000


@dataclass(frozen=True)
class AzureSettings:
    locale: str | None
    text: str
    profanity: str


def read_options(arm: ArmSpec) -> tuple[HttpOptions, AzureSettings]:
    reader = SettingsReader(arm)
    options = read_http_options(arm, reader, policies=("forced",))
    if options.api_key_env is None:
        options = replace(options, api_key_env=DEFAULT_KEY_ENV)
    azure = AzureSettings(
        locale=reader.text("locale"),
        text=reader.choice("text", tuple(TEXT_FIELDS), "display"),
        profanity=reader.choice("profanity", ("raw", "masked", "removed"), "raw"),
    )
    reader.finish()
    return options, azure


class AzureSpeechEngine(RemoteEngine):
    """One request per clip to Azure's short-audio recognition endpoint."""

    backend = BACKEND
    runtime = "azure-speech-rest (short audio)"
    determinism_note = (
        "a remote service: earmark cannot control or see its model version, and the API "
        "takes no seed"
    )

    def __init__(self, arm: ArmSpec, options: HttpOptions, azure: AzureSettings) -> None:
        super().__init__(arm, options)
        self.azure = azure

    @classmethod
    def check_spec(cls, arm: ArmSpec) -> tuple[HttpOptions, AzureSettings]:
        return read_options(arm)

    def _service_record(self) -> dict[str, JSONValue]:
        return {
            "model": BACKEND,
            "api": PATH,
            "locale": self.azure.locale,
            "text": self.azure.text,
            "profanity": self.azure.profanity,
        }

    def _language_sent(self, language: str | None) -> str | None:
        """The locale: the arm's, else the row's tag when it names a region."""
        locale = self.azure.locale or (language if language and "-" in language else None)
        if locale is None:
            raise ClipFailure(
                "locale_needed",
                f"Azure takes a locale such as ga-IE; the row's language is {language!r}: "
                "set locale= on the arm",
            )
        return locale

    def _request(self, audio: bytes, language: str | None) -> tuple[str, bytes, dict[str, str]]:
        query = urlencode(
            {"language": language, "format": "detailed", "profanity": self.azure.profanity}
        )
        headers = {
            "Content-Type": "audio/wav; codecs=audio/pcm; samplerate=16000",
            "Accept": "application/json",
        }
        if self._key:
            headers["Ocp-Apim-Subscription-Key"] = self._key
        return f"{self.options.endpoint}{PATH}?{query}", audio, headers

    def _parse(
        self, payload: JSONValue
    ) -> tuple[str, tuple[Segment, ...], str | None, dict[str, JSONValue]]:
        if not isinstance(payload, dict) or not isinstance(payload.get("RecognitionStatus"), str):
            raise ClipFailure("malformed_response", "no string 'RecognitionStatus' field")
        status = payload["RecognitionStatus"]
        answered: dict[str, JSONValue] = {
            "recognition_status": status,
            "text_field": self.azure.text,
        }
        if status in EMPTY_STATUSES:
            return "", (), None, answered
        if status != "Success":
            raise ClipFailure(f"azure_status:{status}", str(payload)[:300])
        best = payload.get("NBest")
        field = TEXT_FIELDS[self.azure.text]
        if isinstance(best, list) and best and isinstance(best[0], dict):
            text = best[0].get(field)
            confidence = best[0].get("Confidence")
            if isinstance(confidence, int | float):
                answered["confidence"] = float(confidence)
        elif self.azure.text == "display":  # format=simple answers DisplayText only
            text = payload.get("DisplayText")
        else:
            text = None
        if not isinstance(text, str):
            raise ClipFailure("malformed_response", f"no string {field!r} in the best result")
        return text, _segment(payload, text.strip()), None, answered


def _segment(payload: JSONObject, text: str) -> tuple[Segment, ...]:
    offset, duration = payload.get("Offset"), payload.get("Duration")
    if not text or not isinstance(offset, int) or not isinstance(duration, int):
        return ()
    if offset < 0 or duration < 0:
        return ()
    return (Segment(offset / _TICKS, (offset + duration) / _TICKS, text),)

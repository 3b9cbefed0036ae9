"""Streaming one URL to a file with a size bound, using only the standard library.

A fetch must never fill a disk: the declared length is checked before reading, the
running total while reading, and a short or failed transfer leaves no file behind.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earmark.errors import EarmarkError

#: `opener(url)` returns a response with `.read(n)` and `.headers`, like `urlopen`.
Opener = Callable[[str], Any]

_CHUNK = 1 << 20


class RemoteFileMissing(EarmarkError):
    """The server answered 404: for sharded files, the end of the shard list."""


@dataclass(frozen=True)
class Downloaded:
    url: str
    path: Path
    size: int
    sha256: str


def default_opener(timeout: float = 60.0) -> Opener:
    def open_url(url: str) -> Any:
        request = urllib.request.Request(url, headers={"User-Agent": "earmark-fetch"})
        return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 - user-given URL

    return open_url


def download_to(
    url: str, dest: Path, *, max_bytes: int, opener: Opener | None = None
) -> Downloaded:
    """Stream `url` into `dest` (via `dest.part`), refusing more than `max_bytes`."""
    open_url = opener or default_opener()
    part = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    try:
        try:
            response = open_url(url)
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                raise RemoteFileMissing(f"not found (HTTP 404): {url}") from exc
            raise EarmarkError(
                f"download failed with HTTP {exc.code}: {url}",
                hint="rerun the same command to resume",
            ) from exc
        except (urllib.error.URLError, OSError) as exc:
            raise EarmarkError(
                f"download failed: {exc}: {url}", hint="check the network and rerun to resume"
            ) from exc
        with response:
            declared = response.headers.get("Content-Length")
            if declared is not None and int(declared) > max_bytes:
                raise EarmarkError(
                    f"{url} is {int(declared)} bytes, over the {max_bytes}-byte bound",
                    hint="raise --max-shard-bytes if this is expected",
                )
            with open(part, "wb") as handle:
                while True:
                    try:
                        block = response.read(_CHUNK)
                    except (OSError, http.client.HTTPException) as exc:
                        raise EarmarkError(
                            f"download interrupted after {size} bytes: {url}",
                            hint="rerun the same command to resume",
                        ) from exc
                    if not block:
                        break
                    size += len(block)
                    if size > max_bytes:
                        raise EarmarkError(
                            f"{url} exceeded the {max_bytes}-byte bound",
                            hint="raise --max-shard-bytes if this is expected",
                        )
                    digest.update(block)
                    handle.write(block)
            if declared is not None and size != int(declared):
                raise EarmarkError(
                    f"download truncated: {size} of {declared} bytes: {url}",
                    hint="rerun the same command to resume",
                )
        os.replace(part, dest)
    finally:
        part.unlink(missing_ok=True)
    return Downloaded(url=url, path=dest, size=size, sha256=digest.hexdigest())

"""The one HTTP session every source uses: timeouts, retries with backoff, a size cap."""

from __future__ import annotations

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from sources.base import SourceError

USER_AGENT = "gpucalc/0.1 (+https://github.com/gpucalc/gpucalc; nightly GPU price pipeline)"
TIMEOUT_S = (10, 60)  # connect, read
MAX_BYTES = 256 * 1024 * 1024  # a price list larger than this is not what we asked for
RETRY_STATUSES = (429, 500, 502, 503, 504)


def make_session(retries: int = 4, backoff_factor: float = 1.0) -> requests.Session:
    session = requests.Session()
    retry = Retry(
        total=retries,
        connect=retries,
        read=retries,
        status=retries,
        backoff_factor=backoff_factor,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"GET", "POST"}),
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    session.headers["User-Agent"] = USER_AGENT
    return session


def get_bytes(
    session: requests.Session,
    source: str,
    url: str,
    *,
    method: str = "GET",
    max_bytes: int = MAX_BYTES,
    **kwargs,
) -> bytes:
    """Fetch `url` and return the body, or raise SourceError with what went wrong."""
    kwargs.setdefault("timeout", TIMEOUT_S)
    try:
        with session.request(method, url, stream=True, **kwargs) as response:
            if response.status_code >= 400:
                raise SourceError(source, f"HTTP {response.status_code} from {url}")
            declared = response.headers.get("Content-Length")
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_content(chunk_size=1 << 16):
                size += len(chunk)
                if size > max_bytes:
                    raise SourceError(source, f"response from {url} exceeds {max_bytes} bytes")
                chunks.append(chunk)
            body = b"".join(chunks)
            # Content-Length counts encoded bytes; only compare when the body was not decoded.
            encoded = response.headers.get("Content-Encoding", "identity") != "identity"
            if declared and declared.isdigit() and not encoded and int(declared) != len(body):
                raise SourceError(
                    source, f"truncated response from {url}: {len(body)} of {declared} bytes"
                )
            return body
    except requests.RequestException as exc:
        raise SourceError(source, f"request to {url} failed: {exc}") from exc

"""The one HTTP session every source uses: timeouts, retries with backoff, a size cap.

Retries live here and only here (the fetch tasks do not retry on top): a 429 or 5xx is
retried with backoff, honouring Retry-After, and a read that timed out is tried again. A
name that does not resolve or a connection that is refused is not transient: it fails at
once, so a night without network ends in seconds, not in minutes of retries.
"""

from __future__ import annotations

from urllib.parse import urlparse

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from sources.kit.spec import SourceError

USER_AGENT = "gpucalc/0.1 (+https://github.com/gpucalc/gpucalc; nightly GPU price pipeline)"
TIMEOUT_S = (10, 60)  # connect, read
MAX_BYTES = 256 * 1024 * 1024  # a price list larger than this is not what we asked for
RETRY_STATUSES = (429, 500, 502, 503, 504)
READ_RETRIES = 2


def make_session(retries: int = 4, backoff_factor: float = 1.0) -> requests.Session:
    session = requests.Session()
    retry = Retry(
        total=None,
        connect=0,  # DNS failure, refused connection: retrying only delays the same answer
        read=READ_RETRIES,
        status=retries,
        other=0,
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
        raise SourceError(source, describe_failure(url, exc)) from exc


def describe_failure(url: str, exc: requests.RequestException) -> str:
    """One sentence for a failed request; the exception chain keeps the detail for the log."""
    host = urlparse(url).hostname or url
    text = str(exc)
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return f"timed out connecting to {host} after {TIMEOUT_S[0]} s"
    if isinstance(exc, requests.exceptions.ReadTimeout):
        return f"{host} did not answer within {TIMEOUT_S[1]} s (tried {READ_RETRIES + 1} times)"
    if isinstance(exc, requests.exceptions.Timeout):
        return f"timed out talking to {host}"
    if isinstance(exc, requests.exceptions.ChunkedEncodingError):
        return f"{host} ended the response early (the body is shorter than announced)"
    if isinstance(exc, requests.exceptions.SSLError):
        return f"TLS handshake with {host} failed"
    if isinstance(exc, requests.exceptions.ConnectionError):
        if any(s in text for s in ("NameResolution", "Name or service not known", "name resolution", "getaddrinfo")):
            return f"cannot resolve {host} (no network or DNS)"
        if "Connection refused" in text:
            return f"{host} refused the connection"
        if "Connection reset" in text or "RemoteDisconnected" in text:
            return f"{host} closed the connection"
        return f"cannot connect to {host}"
    return f"request to {host} failed ({type(exc).__name__})"


def failures_in_short(failures: list[tuple[str, str]]) -> str:
    """What failed across a source's parts (clouds, regions, repositories) in one sentence:
    each distinct reason once, with the parts it hit (no network: one reason, not 23)."""
    by_reason: dict[str, list[str]] = {}
    for part, why in failures:
        by_reason.setdefault(why, []).append(part)
    return "; ".join(f"{why} ({_parts(parts)})" for why, parts in by_reason.items())


def _parts(parts: list[str]) -> str:
    return ", ".join(parts) if len(parts) <= 3 else f"{', '.join(parts[:2])} and {len(parts) - 2} more"

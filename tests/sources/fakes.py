"""Fake HTTP for source and flow tests: canned replies, never the network.

Two kinds, for two kinds of test:

* `FakeHTTP` / `fake_session` replace only the socket. requests and urllib3's retry loop from
  `sources.kit.http.make_session` run for real, so a 500 followed by a 200 proves the shared
  session retries, and a flow test can serve recorded responses to a whole run.
* `FakeAdapter` / `RoutedAdapter` replace the whole transport adapter (no urllib3 retries):
  the quickest way to hand one source a queue of replies.
"""

from __future__ import annotations

import io
import threading
from urllib.parse import unquote

import requests
from requests.adapters import BaseAdapter, HTTPAdapter
from urllib3 import HTTPResponse
from urllib3.connectionpool import HTTPSConnectionPool

from sources.kit.http import make_session


def url_key(url: str) -> str:
    """URLs compare without the default port and with percent-escapes decoded."""
    return unquote(url).replace(":443/", "/")


# --- socket-level fake: the real retry loop over canned replies --------------------------------

class _FakePool(HTTPSConnectionPool):
    adapter: FakeHTTP

    def _make_request(self, conn, method, url, **kw):
        full = f"https://{self.host}{url}"
        reply = self.adapter.next_reply(full)
        if isinstance(reply, Exception):
            raise reply
        status, body, headers = reply
        return HTTPResponse(
            body=io.BytesIO(body), headers=headers, status=status, request_method=method,
            request_url=url, preload_content=kw.get("preload_content", True),
            decode_content=kw.get("decode_content", True), retries=kw.get("retries"),
            enforce_content_length=kw.get("enforce_content_length", True),
        )


class FakeHTTP(HTTPAdapter):
    """Replies per URL, in order (the last one repeats); unknown URLs get 404. Counts calls.

    A reply is bytes (200), (status, bytes, headers), a urllib3 exception (raised inside the
    retry loop) or a requests exception (raised by the adapter itself, after retries).
    Thread-safe, so the sessions of parallel fetch tasks can share one route table.
    """

    def __init__(self, routes: dict, max_retries):
        super().__init__(max_retries=max_retries)
        self.routes = {url_key(url): list(replies) for url, replies in routes.items()}
        self.calls: list[str] = []
        self._pools: dict[str, _FakePool] = {}
        self._lock = threading.Lock()

    def next_reply(self, url: str):
        with self._lock:
            self.calls.append(url)
            replies = self.routes.get(url_key(url))
            if not replies:
                return (404, b"Not Found", {})
            reply = replies.pop(0) if len(replies) > 1 else replies[0]
        if isinstance(reply, bytes):
            return (200, reply, {"Content-Length": str(len(reply))})
        return reply

    def send(self, request, **kwargs):
        with self._lock:
            replies = self.routes.get(url_key(request.url))
            early = replies[0] if replies and isinstance(replies[0], requests.RequestException) else None
            if early is not None:
                self.calls.append(request.url)
                if len(replies) > 1:
                    replies.pop(0)
        if early is not None:
            raise early
        return super().send(request, **kwargs)

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):
        host = requests.utils.urlparse(request.url).hostname
        with self._lock:
            if host not in self._pools:
                pool = _FakePool(host, 443)
                pool.adapter = self
                self._pools[host] = pool
            return self._pools[host]


def fake_session(routes: dict) -> tuple[requests.Session, FakeHTTP]:
    """The real shared session (no backoff, so retries are instant) over canned replies."""
    session = make_session(backoff_factor=0)
    fake = FakeHTTP(routes, session.get_adapter("https://example.com").max_retries)
    session.mount("https://", fake)
    session.mount("http://", fake)
    return session, fake


def session_factory(routes: dict):
    """A stand-in for `sources.kit.http.make_session` serving `routes`; returns (factory, fake).

    Every session it makes shares one FakeHTTP, so a test can count calls across tasks.
    """
    template, fake = fake_session(routes)

    def make(retries: int = 4, backoff_factor: float = 1.0) -> requests.Session:
        session = make_session(retries=retries, backoff_factor=0)
        session.mount("https://", fake)
        session.mount("http://", fake)
        return session

    template.close()
    return make, fake


# --- adapter-level fakes: replies handed straight to requests -----------------------------------

def _response(request, answer) -> requests.Response:
    status, body, headers = answer if len(answer) == 3 else (*answer, {})
    response = requests.Response()
    response.status_code, response.raw, response.url, response.request = (
        status,
        io.BytesIO(body),
        request.url,
        request,
    )
    response.headers.update(headers)
    return response


class FakeAdapter(BaseAdapter):
    """Serves queued (status, body, headers) or raises queued exceptions; records requests."""

    def __init__(self, *answers):
        super().__init__()
        self.answers = list(answers)
        self.requests: list[requests.PreparedRequest] = []

    def send(self, request, **kwargs):
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return _response(request, answer)

    def close(self):
        pass


def session_with(adapter: BaseAdapter) -> requests.Session:
    session = make_session(backoff_factor=0)
    session.mount("https://", adapter)
    return session


class RoutedAdapter(BaseAdapter):
    """Serves per-URL queued (status, body, headers) or exceptions; unknown URLs are 404."""

    def __init__(self, routes: dict[str, list]):
        super().__init__()
        self.routes = routes
        self.requests: list[requests.PreparedRequest] = []

    def send(self, request, **kwargs):
        self.requests.append(request)
        queue = self.routes.get(request.url, [(404, b"Not Found")])
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        return _response(request, answer)

    def close(self):
        pass

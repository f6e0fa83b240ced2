"""A small client of the urldedup query service: JSON over one persistent HTTP/1.1 connection
(the standard library's http.client), an optional bearer token, bounded retries of a connection
the service closed."""

import http.client
import json
import urllib.parse


class UrldedupError(Exception):
    """The service answered with an error (``code`` is its stable error code)."""

    def __init__(self, status, code, message):
        super().__init__(f"urldedup service: {status} {code}: {message}")
        self.status = status
        self.code = code


def client_from_settings(settings, who):
    """The client a component configures from Scrapy settings (URLDEDUP_URL, URLDEDUP_TOKEN)."""
    url = settings.get("URLDEDUP_URL")
    if not url:
        raise ValueError(f"{who} needs the URLDEDUP_URL setting (urldedup serve's address)")
    return UrldedupClient(url, settings.get("URLDEDUP_TOKEN"))


class UrldedupClient:
    def __init__(self, base_url, token=None, timeout=30.0):
        u = urllib.parse.urlsplit(base_url)
        if u.scheme != "http" or not u.hostname:
            raise ValueError(f"URLDEDUP_URL must be http://HOST:PORT, not {base_url!r}")
        self.host = u.hostname
        self.port = u.port or 80
        self.token = token
        self.timeout = timeout
        self._conn = None

    def _connection(self):
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        return self._conn

    def request(self, method, path, body=None):
        headers = {"accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, path, body=data, headers=headers)
                res = conn.getresponse()
                raw = res.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, http.client.CannotSendRequest):
                # a keep-alive connection the service closed: once more on a new one
                self.close()
                if attempt == 2:
                    raise
        payload = json.loads(raw.decode("utf-8")) if raw else None
        if res.status >= 400:
            err = (payload or {}).get("error", {})
            raise UrldedupError(res.status, err.get("code", "ERR_HTTP"), err.get("message", ""))
        return payload

    def admit(self, urls, depth=None):
        """``POST /v1/admit``: one atomic batch; a result per URL, in order."""
        body = {"urls": list(urls)}
        if depth is not None:
            body["depth"] = depth
        return self.request("POST", "/v1/admit", body)["results"]

    def keys(self, urls):
        """``POST /v1/key``: keys and state of each URL, in order (``ok: false`` for a bad one)."""
        return self.request("POST", "/v1/key", list(urls))["results"]

    def evidence(self, redirects=(), fetches=()):
        """``POST /v1/evidence``: what the downloads found (redirects and fetched documents)."""
        return self.request("POST", "/v1/evidence", {"redirects": list(redirects), "fetches": list(fetches)})

    def close(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

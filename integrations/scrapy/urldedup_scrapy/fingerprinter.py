"""A Scrapy request fingerprinter (REQUEST_FINGERPRINTER_CLASS) on the urldedup key: two requests
whose URLs the store maps to one canonical key (RFC 3986 ladder, presets, learned host rules,
aliases) get one fingerprint, where Scrapy's own canonicalizes the URL text alone. The canonical
key is asked of the service (``POST /v1/key``) and kept in a bounded cache per URL; the method and
body are hashed with it, as Scrapy does.

  REQUEST_FINGERPRINTER_CLASS = "urldedup_scrapy.UrldedupRequestFingerprinter"
"""

import hashlib
from collections import OrderedDict

from .client import client_from_settings

CACHE_SIZE = 65536


class UrldedupRequestFingerprinter:
    def __init__(self, client):
        self.client = client
        self.cache = OrderedDict()

    @classmethod
    def from_crawler(cls, crawler):
        return cls(client_from_settings(crawler.settings, cls.__name__))

    def canonical_key(self, url):
        key = self.cache.get(url)
        if key is not None:
            self.cache.move_to_end(url)
            return key
        result = self.client.keys([url])[0]
        # a URL the store cannot key is its own key
        key = result["canonicalKey"] if result.get("ok") else url
        self.cache[url] = key
        if len(self.cache) > CACHE_SIZE:
            self.cache.popitem(last=False)
        return key

    def fingerprint(self, request):
        h = hashlib.sha1()
        h.update(request.method.encode("ascii"))
        h.update(b"\0")
        h.update(self.canonical_key(request.url).encode("utf-8"))
        h.update(b"\0")
        h.update(request.body or b"")
        return h.digest()

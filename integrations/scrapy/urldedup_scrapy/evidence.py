"""A downloader middleware that tells the urldedup store what each download found: a fetched
document (status, final URL, a hash of the body) or a failure. This is the evidence the store
learns host rules from (a session parameter that never changes the page), so the dupefilter
filters more as the crawl goes on. Redirects are told by the dupefilter, when Scrapy schedules
their target (dupefilter.py says why). It changes nothing in the response.

  DOWNLOADER_MIDDLEWARES = {"urldedup_scrapy.UrldedupEvidenceMiddleware": 650}
"""

import hashlib
import logging

from .client import UrldedupError, client_from_settings

logger = logging.getLogger(__name__)


class UrldedupEvidenceMiddleware:
    def __init__(self, client):
        self.client = client

    @classmethod
    def from_crawler(cls, crawler):
        return cls(client_from_settings(crawler.settings, cls.__name__))

    def process_response(self, request, response, spider):
        if 300 <= response.status < 400 and response.headers.get(b"Location"):
            return response
        try:
            fetch = {"url": request.url, "status": response.status, "finalUrl": response.url}
            if 200 <= response.status < 300:
                fetch["contentHash"] = hashlib.sha256(response.body).hexdigest()
            self.client.evidence(fetches=[fetch])
        except (UrldedupError, OSError) as e:
            # evidence only teaches: a failure to send it never fails the download
            logger.warning("urldedup: evidence not recorded for %s: %s", request.url, e)
        return response

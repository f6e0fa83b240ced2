"""A Scrapy dupefilter backed by the urldedup store (through its query service).

Scrapy's default ``RFPDupeFilter`` keeps a set of every request fingerprint in memory (and on
disk with JOBDIR, read back whole at start): on a broad crawl it grows without bound. This one
keeps nothing: each request's URL is offered to the store (``POST /v1/admit``), which answers
whether it is new after the RFC 3986 ladder, the store's presets, the host rules it has learned
from the crawl's own redirects and content, and its aliases. The store is on disk (LevelDB) or on
a Redis Cluster, and resumes with the crawl.

A redirect is told to the store here, when Scrapy schedules the redirect's target (its
``redirect_urls``), after the target itself was offered: told earlier, the store would queue the
target itself and then call Scrapy's request for it a duplicate.

A redirect's target the store has queued but not fetched passes: the request that led to the
redirect was the one let through for it (a rule or preset mapped it onto the target).

A URL a learned host rule maps onto a known one is filtered at its first appearance only with
URLDEDUP_TRUST_RULES: when such a rule is withdrawn (a later page contradicts it), the store gives
the URLs it pruned back to its own frontier, which Scrapy does not read, and its checks of a new
rule (fetching a few of its rewrites as themselves) go there too. Without it, the filter drops
what the RFC 3986 ladder, the store's presets and its aliases (redirects) show to be the same, and
lets each rule-mapped URL through once (a second appearance of the same URL is filtered): one
more request per URL the rule covers, nothing lost when the rule is wrong.

Settings:
  URLDEDUP_URL          the service, e.g. http://127.0.0.1:7070 (``urldedup serve --db DIR``)
  URLDEDUP_TOKEN        its bearer token, if it has one
  URLDEDUP_TRUST_RULES  also filter what learned host rules map onto a known URL (default False)
  DUPEFILTER_DEBUG      log every filtered request, as Scrapy's own
"""

import logging

from scrapy.dupefilters import BaseDupeFilter

from .client import UrldedupClient

logger = logging.getLogger(__name__)


class UrldedupDupeFilter(BaseDupeFilter):
    def __init__(self, url, token=None, debug=False, stats=None, trust_rules=False):
        self.client = UrldedupClient(url, token)
        self.trust_rules = trust_rules
        self.debug = debug
        self.stats = stats
        self.logdupes = True

    @classmethod
    def from_settings(cls, settings):
        url = settings.get("URLDEDUP_URL")
        if not url:
            raise ValueError("UrldedupDupeFilter needs the URLDEDUP_URL setting (urldedup serve's address)")
        return cls(url, settings.get("URLDEDUP_TOKEN"), settings.getbool("DUPEFILTER_DEBUG"), trust_rules=settings.getbool("URLDEDUP_TRUST_RULES"))

    @classmethod
    def from_crawler(cls, crawler):
        f = cls.from_settings(crawler.settings)
        f.stats = crawler.stats
        return f

    def request_seen(self, request):
        # a request Scrapy would not filter (dont_filter) never reaches here; a non-GET request is
        # not a document's name: the store is not asked
        if request.method not in ("GET", "HEAD"):
            return False
        # without trusting rules: whether this very URL was offered before (its own entry exists)
        before = None if self.trust_rules else self.client.keys([request.url])[0].get("state")
        result = self.client.admit([request.url], depth=request.meta.get("depth"))[0]
        self._redirect_evidence(request)
        if result.get("admitted"):
            return False
        if result.get("key") is None:
            # a URL the store cannot key (the service says why): Scrapy fetches it and fails it
            return False
        by = result.get("via") or result.get("reason") or ""
        if by.startswith("rule:") and not self.trust_rules and before in (None, "unknown", "seen"):
            # mapped by a learned rule onto a known URL, and offered for the first time: fetched
            # (once: the next time, its own entry says it was offered)
            return False
        if request.meta.get("redirect_urls") and self._still_queued(request.url):
            # the end of a redirect from a request let through for this very document (a rule or
            # preset mapped that request onto this URL, which Scrapy reaches only by the redirect)
            return False
        if self.stats is not None:
            self.stats.inc_value("urldedup/filtered")
            self.stats.inc_value(f"urldedup/filtered/{result.get('via') or result.get('reason')}")
        return True

    def _still_queued(self, url):
        """Whether the store has `url` queued and not yet fetched."""
        return self.client.keys([url])[0].get("state") == "queued"

    def _redirect_evidence(self, request):
        """The redirect that made ``request``, if one did (RedirectMiddleware's meta)."""
        sources = request.meta.get("redirect_urls")
        if not sources:
            return
        reasons = request.meta.get("redirect_reasons") or []
        status = reasons[-1] if reasons and isinstance(reasons[-1], int) else 301
        self.client.evidence(redirects=[{"from": sources[-1], "to": request.url, "status": status}])

    def log(self, request, spider):
        if self.debug:
            logger.debug("Filtered duplicate request: %(request)s", {"request": request}, extra={"spider": spider})
        elif self.logdupes:
            logger.debug("Filtered duplicate request: %(request)s - no more duplicates will be shown (see DUPEFILTER_DEBUG)", {"request": request}, extra={"spider": spider})
            self.logdupes = False
        spider.crawler.stats.inc_value("dupefilter/filtered", spider=spider)

    def close(self, reason):
        self.client.close()

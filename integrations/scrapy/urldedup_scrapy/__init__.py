"""urldedup for Scrapy: a dupefilter, a request fingerprinter and an evidence middleware that
ask a running urldedup query service (``urldedup serve``) instead of keeping every fingerprint in
memory. See README.md."""

from .client import UrldedupClient, UrldedupError
from .dupefilter import UrldedupDupeFilter
from .evidence import UrldedupEvidenceMiddleware
from .fingerprinter import UrldedupRequestFingerprinter

__all__ = [
    "UrldedupClient",
    "UrldedupError",
    "UrldedupDupeFilter",
    "UrldedupEvidenceMiddleware",
    "UrldedupRequestFingerprinter",
]

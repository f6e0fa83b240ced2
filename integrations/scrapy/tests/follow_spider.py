"""The test spider: follows every link of every page within the allowed domain (the start URL's
host and its subdomains), robots.txt obeyed. Used by test/integrations/scrapy.test.ts."""

import os
from urllib.parse import urlsplit

import scrapy


class FollowSpider(scrapy.Spider):
    name = "follow"
    custom_settings = {"ROBOTSTXT_OBEY": True, "LOG_LEVEL": "INFO", "TELNETCONSOLE_ENABLED": False}

    def __init__(self, start=None, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start or os.environ["START_URL"]]
        self.allowed_domains = [urlsplit(self.start_urls[0]).hostname]

    def parse(self, response):
        if not hasattr(response, "css"):
            return
        for href in response.css("a::attr(href), link::attr(href), iframe::attr(src)").getall():
            yield response.follow(href, callback=self.parse)

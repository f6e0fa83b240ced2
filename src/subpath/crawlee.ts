/**
 * `urldedup/crawlee`: the store as the judge of a Crawlee crawler's request queue
 * (integrations/crawlee/README.md). Crawlee itself is not imported: bring your own (version 3).
 */
export {
  CrawleeDedup,
  type CrawleeDedupOptions,
  type CrawleeDedupStats,
  type CrawleeContextLike,
  type CrawleeProcessedRequest,
  type CrawleeQueueLike,
  type CrawleeRequestLike,
} from '../integrations/crawlee.js';

/**
 * Preset `tracking`: query parameters that analytics and ad platforms append to links.
 * They select no content; the page is the same without them. Names are matched exactly
 * (case-sensitively, as the platforms read them): `UTM_SOURCE` and `Fbclid` are kept.
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';
import { parameterName, removeQueryFields } from './query-parameters.js';

/** Every parameter whose name starts with one of these is removed. */
export const trackingParameterPrefixes: readonly string[] = ['utm_'];

/** Parameters removed by exact name, with the platform that sets each. */
export const trackingParameterNames: Readonly<Record<string, string>> = {
  // Google Ads, Analytics, Merchant Center
  gclid: 'Google Ads click id',
  gclsrc: 'Google Ads click source',
  dclid: 'Google Display & Video click id',
  gbraid: 'Google Ads app-to-web click id',
  wbraid: 'Google Ads web-to-app click id',
  gad_source: 'Google Ads source',
  _ga: 'Google Analytics cross-domain linker (legacy)',
  _gl: 'Google Analytics cross-domain linker',
  srsltid: 'Google Merchant Center result tracking id',
  // Microsoft, Meta, TikTok, X, LinkedIn, Pinterest, Yandex
  msclkid: 'Microsoft Advertising click id',
  fbclid: 'Facebook click id',
  igshid: 'Instagram share id',
  igsh: 'Instagram share id',
  ttclid: 'TikTok click id',
  twclid: 'X (Twitter) click id',
  li_fat_id: 'LinkedIn first-party ad tracking id',
  epik: 'Pinterest click id',
  yclid: 'Yandex Direct click id',
  ysclid: 'Yandex search click id',
  _openstat: 'Yandex Openstat tag',
  // E-mail marketing
  mc_cid: 'Mailchimp campaign id',
  mc_eid: 'Mailchimp subscriber id',
  _hsenc: 'HubSpot e-mail tracking',
  _hsmi: 'HubSpot e-mail id',
  __hssc: 'HubSpot session cookie in a link',
  __hstc: 'HubSpot visitor cookie in a link',
  __hsfp: 'HubSpot fingerprint in a link',
  mkt_tok: 'Marketo e-mail token',
  _kx: 'Klaviyo e-mail id',
  oly_anon_id: 'Omeda Olytics anonymous id',
  oly_enc_id: 'Omeda Olytics encrypted id',
  vero_id: 'Vero e-mail id',
  vero_conv: 'Vero conversion id',
  // Matomo (formerly Piwik) campaign parameters
  mtm_campaign: 'Matomo campaign',
  mtm_cid: 'Matomo campaign id',
  mtm_content: 'Matomo campaign content',
  mtm_group: 'Matomo campaign group',
  mtm_keyword: 'Matomo campaign keyword',
  mtm_medium: 'Matomo campaign medium',
  mtm_placement: 'Matomo campaign placement',
  mtm_source: 'Matomo campaign source',
  pk_campaign: 'Piwik campaign',
  pk_cid: 'Piwik campaign id',
  pk_content: 'Piwik campaign content',
  pk_keyword: 'Piwik campaign keyword',
  pk_kwd: 'Piwik campaign keyword',
  pk_medium: 'Piwik campaign medium',
  pk_source: 'Piwik campaign source',
};

const names: ReadonlySet<string> = new Set(Object.keys(trackingParameterNames));

/** True when the parameter `name` is a tracking parameter. */
export function isTrackingParameter(name: string): boolean {
  if (names.has(name)) return true;
  for (const prefix of trackingParameterPrefixes) if (name.startsWith(prefix)) return true;
  return false;
}

function isTrackingField(field: string): boolean {
  return isTrackingParameter(parameterName(field));
}

export const tracking: Preset = {
  name: 'tracking',
  summary:
    'Remove analytics and ad-click parameters from the query (exact, case-sensitive names); the `?` goes when nothing is left.',
  removes: [
    ...trackingParameterPrefixes.map((p) => `${p}* (every parameter whose name starts with ${p})`),
    ...Object.keys(trackingParameterNames).map((n) => `${n} (${trackingParameterNames[n]})`),
    'the ? when no query field is left',
    '(a query holding a malformed %, one not followed by two hex digits, is left as it is)',
  ],
  apply(rec: UriRecord): UriRecord {
    return removeQueryFields(rec, isTrackingField);
  },
};

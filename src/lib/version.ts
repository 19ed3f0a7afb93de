// The API version Confab implements (the founding document's feature level).
export const ZULIP_FEATURE_LEVEL = 494;
export const ZULIP_VERSION = '12.0-confab';
export const CONFAB_VERSION = '0.1.0';

export { contentSecurityPolicy, PAGE_SECURITY_HEADERS } from './content-security-policy';
export { isCrossSiteWrite, refuseCrossSiteWrites, type CrossSiteWriteOptions } from './cross-site';
export { pagesBuilt, setPageHeaders, staticPages, type StaticPagesOptions } from './static-pages';

export { chromiumPath, launchBrowser } from './browser';
export { seriousAccessibilityViolations, type AccessibilityViolation } from './accessibility';

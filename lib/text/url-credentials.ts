/**
 * Text as a message may show it, with the `user:password@` of any URL in it replaced by `***@`: for text
 * that may not parse as a URL (a typo'd host, port or scheme) as well as for one that does. Userinfo
 * ends at the first `@` of the authority, which holds no `/`, `?` or `#`; a bare `user:password@host`
 * (no scheme) at the start is hidden too.
 */
export function hideUrlCredentials(text: string): string {
  return text.replace(/\/\/[^/?#\s]*@/g, '//***@').replace(/^[^=/]*:[^=/]*@/, '***@');
}

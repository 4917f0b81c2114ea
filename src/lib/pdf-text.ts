// Text for the standard PDF fonts, shared by the PDF renderers (the CVE PDF of the routes, the plant report PDF).

/** Line breaks normalised and other control characters dropped: the standard PDF fonts draw them as glyphs. */
export function clean(s: string): string {
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  return s.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

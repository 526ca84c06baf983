/**
 * Issue 14: one escaping function for every printer. An ESC sequence in one operator's `reason` could
 * clear another operator's terminal and draw a fake "all clear"; a C1 CSI (U+009B) does the same on
 * 8-bit terminals, and a bidi override reorders what is shown. `escapeControlChars` shows each such
 * character as a visible `\uXXXX` instead, and `findControlChar` is the same class for validators.
 */
import { escapeControlChars, findControlChar } from '../../../lib/text';

describe('escapeControlChars', () => {
  it.each([
    ['ESC', 'INC-1\u001b[2J\u001b[Hall clear', 'INC-1\\u001b[2J\\u001b[Hall clear'],
    ['a C1 CSI', 'a\u009b2Jb', 'a\\u009b2Jb'],
    ['DEL and NUL', 'a\u007fb\u0000', 'a\\u007fb\\u0000'],
    ['line breaks and a tab', 'a\nb\r\tc', 'a\\nb\\r\\tc'],
    ['bidi controls and separators', 'a\u202eb\u2066c\u200fd\u2028e', 'a\\u202eb\\u2066c\\u200fd\\u2028e'],
  ])('shows %s as visible escapes', (_, text, shown) => {
    expect(escapeControlChars(text)).toBe(shown);
  });

  it("shows every character of Unicode's Bidi_Control set (U+061C ARABIC LETTER MARK included) as an escape, and findControlChar finds each", () => {
    // Prepare
    const bidiControls = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).filter((c) => /\p{Bidi_Control}/u.test(c));

    // Act
    const missed = bidiControls.filter((c) => escapeControlChars(`a${c}b`) === `a${c}b` || findControlChar(c) === undefined);

    // Assess
    expect(bidiControls).toHaveLength(12);
    expect(missed.map((c) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)).toEqual([]);
    expect(escapeControlChars('a\u061cb')).toBe('a\\u061cb');
  });

  it('keeps newlines when asked (whole messages), and escapes everything else', () => {
    expect(escapeControlChars('line 1\nline 2\u001b[31m\r', { keepNewlines: true })).toBe('line 1\nline 2\\u001b[31m\\r');
  });

  it('leaves ordinary text untouched, Unicode and backslashes included', () => {
    const text = 'Störung — “lor1” 🔥 C:\\path\\u001b {"a":1}';
    expect(escapeControlChars(text)).toBe(text);
  });
});

describe('findControlChar', () => {
  it('names the first control character and where it is', () => {
    expect(findControlChar('ab\u001bc\u0000')).toEqual({ index: 2, codePoint: 'U+001B' });
    expect(findControlChar('ok — fine')).toBeUndefined();
  });
});

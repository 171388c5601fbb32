//! Writing JSON string literals exactly as Python's `json.dumps(..., ensure_ascii=False)` does.

/// The escape for each byte below 0x20, `"` and `\`; 0 for bytes written as they are.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `text` as a JSON string literal: `"` and `\` escaped, control characters as `\n`,
/// `\r`, `\t`, `\b`, `\f` or `\u00xx`, every other byte (so every non-ASCII code point) as is.
/// Works on any superset of UTF-8 (such as surrogates encoded like code points), because it
/// only ever touches ASCII bytes.
pub fn write_str(out: &mut Vec<u8>, text: &[u8]) {
    out.reserve(text.len() + 2);
    out.push(b'"');
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        let escape = ESCAPE[b as usize];
        if escape == 0 {
            continue;
        }
        out.extend_from_slice(&text[start..i]);
        start = i + 1;
        if escape == b'u' {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 0xF) as usize]);
        } else {
            out.push(b'\\');
            out.push(escape);
        }
    }
    out.extend_from_slice(&text[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, text.as_bytes());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn strings() {
        assert_eq!(s(""), r#""""#);
        assert_eq!(s("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(s("\n\r\t\u{8}\u{c}"), r#""\n\r\t\b\f""#);
        assert_eq!(s("\u{0}\u{1f}\u{7f}"), "\"\\u0000\\u001f\u{7f}\"");
        assert_eq!(s("é日😀/"), "\"é日😀/\"");
    }
}

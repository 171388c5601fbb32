//! Writing JSON text exactly as Python's `json.dumps(..., ensure_ascii=False)` does, for the
//! scalar parts: strings and floats.

use std::io::Write as _;

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

/// Appends a finite float as Python's `float.__repr__` writes it: the shortest digits that
/// read back to the same value, in fixed notation when the decimal exponent is from -4 to 15
/// (with `.0` for whole numbers), else as `d.ddde+XX`.
pub fn write_float(out: &mut Vec<u8>, value: f64) {
    // Rust's `{:e}` gives the same shortest round-trip digits as Python's repr; only the
    // layout differs.
    let mut sci = [0u8; 40];
    let mut cursor = std::io::Cursor::new(&mut sci[..]);
    if write!(cursor, "{value:e}").is_err() {
        return;
    }
    let len = cursor.position() as usize;
    let sci = &sci[..len];
    let (sign, sci) = match sci.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, sci),
    };
    let e_pos = sci.iter().position(|&b| b == b'e').unwrap_or(sci.len());
    let (mantissa, exponent) = (&sci[..e_pos], &sci[e_pos..]);
    let exponent: i32 = std::str::from_utf8(exponent.get(1..).unwrap_or_default())
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(0);
    let mut digits = [0u8; 20];
    let mut n = 0;
    for &b in mantissa {
        if b != b'.' && n < digits.len() {
            digits[n] = b;
            n += 1;
        }
    }
    let digits = &digits[..n];
    if sign {
        out.push(b'-');
    }
    // decimal point position relative to the digits, as Python's dtoa reports it
    let decpt = exponent + 1;
    if (-3..=16).contains(&decpt) {
        if decpt <= 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', decpt.unsigned_abs() as usize));
            out.extend_from_slice(digits);
        } else {
            let point = decpt as usize;
            if point >= digits.len() {
                out.extend_from_slice(digits);
                out.extend(std::iter::repeat_n(b'0', point - digits.len()));
                out.extend_from_slice(b".0");
            } else {
                out.extend_from_slice(&digits[..point]);
                out.push(b'.');
                out.extend_from_slice(&digits[point..]);
            }
        }
    } else {
        out.push(digits.first().copied().unwrap_or(b'0'));
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if exponent < 0 { b'-' } else { b'+' });
        let _ = write!(out, "{:02}", exponent.unsigned_abs());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, text.as_bytes());
        String::from_utf8(out).unwrap()
    }

    fn f(value: f64) -> String {
        let mut out = Vec::new();
        write_float(&mut out, value);
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

    #[test]
    fn floats_like_python_repr() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e100, "1e+100"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
            (-2.5e-5, "-2.5e-05"),
            (9007199254740993.0, "9007199254740992.0"),
            (12345.678, "12345.678"),
        ];
        for &(value, expected) in cases {
            assert_eq!(f(value), expected, "{value:?}");
        }
    }
}

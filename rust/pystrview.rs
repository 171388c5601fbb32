//! Parsing a non-ASCII `str` where it lies, in CPython's own layout (1, 2 or 4 bytes a code
//! point), instead of through its UTF-8 form: `PyUnicode_AsUTF8AndSize` would encode the whole
//! text (and cache the copy on the object), and every string value would then be decoded back.
//!
//! The scanner reads a *narrow* copy of the text instead: one byte per code point, ASCII kept,
//! every other code point written as `0xFF` (a byte UTF-8 never uses). JSON's structure is
//! ASCII, so the scan is the same as on the UTF-8 text, and the offsets it reports are code
//! point indices into the `str`: a string without escapes is then a `PyUnicode_Substring` (a
//! copy of its units), and one with escapes is decoded from the units.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// The code units of a `str`, in the kind CPython stores it in.
#[derive(Clone, Copy)]
pub(crate) enum Units<'a> {
    One(&'a [u8]),
    Two(&'a [u16]),
    Four(&'a [u32]),
}

/// A `str` being parsed, and its code units.
#[derive(Clone, Copy)]
pub(crate) struct StrSource<'a> {
    object: &'a Bound<'a, PyString>,
    units: Units<'a>,
}

/// The text holds a lone surrogate (not valid Unicode, so not JSON text).
pub(crate) struct LoneSurrogate;

impl<'a> StrSource<'a> {
    /// The units of `object`; `None` when it is pure ASCII (whose UTF-8 form is its data, so
    /// the UTF-8 route costs nothing) or not in the canonical compact layout.
    pub(crate) fn of(object: &'a Bound<'_, PyString>) -> Option<Self> {
        let ptr = object.as_ptr();
        // SAFETY: `ptr` is a live `str` (the borrow keeps it alive). On 3.11 a legacy string
        // may not be "ready" (its canonical data not built yet); `PyUnicode_READY` builds it,
        // and on failure we fall back to the UTF-8 route, which reports the error. A ready
        // `str` is immutable: its `length` units of its `kind` at `PyUnicode_DATA` stay as they
        // are for as long as the object lives, which the `'a` borrow guarantees.
        unsafe {
            if ffi::PyUnicode_READY(ptr) != 0 {
                ffi::PyErr_Clear();
                return None;
            }
            #[cfg(not(Py_3_14))]
            if ffi::PyUnicode_IS_ASCII(ptr) != 0 {
                return None;
            }
            let len = usize::try_from(ffi::PyUnicode_GET_LENGTH(ptr)).ok()?;
            let data = ffi::PyUnicode_DATA(ptr);
            let units = match ffi::PyUnicode_KIND(ptr) {
                ffi::PyUnicode_1BYTE_KIND => {
                    let units: &[u8] = std::slice::from_raw_parts(data.cast(), len);
                    // For 3.14 and later PyO3 binds no `PyUnicode_IS_ASCII` (nor the state
                    // bit-field it reads, whose layout is the compiler's): a 1-byte text is
                    // ASCII when every byte is, a check that runs far faster than the parse.
                    #[cfg(Py_3_14)]
                    if units.is_ascii() {
                        return None;
                    }
                    Units::One(units)
                }
                ffi::PyUnicode_2BYTE_KIND => {
                    Units::Two(std::slice::from_raw_parts(data.cast(), len))
                }
                ffi::PyUnicode_4BYTE_KIND => {
                    Units::Four(std::slice::from_raw_parts(data.cast(), len))
                }
                _ => return None,
            };
            Some(Self { object, units })
        }
    }

    /// Writes the narrow copy of the text into `out` (one byte per code point).
    pub(crate) fn narrow(&self, out: &mut Vec<u8>) -> Result<(), LoneSurrogate> {
        let surrogate = match self.units {
            Units::One(units) => narrow_into(units, out),
            Units::Two(units) => narrow_into(units, out),
            Units::Four(units) => narrow_into(units, out),
        };
        if surrogate {
            Err(LoneSurrogate)
        } else {
            Ok(())
        }
    }

    /// The text of code points `start..end` as a new `str` (in canonical form).
    pub(crate) fn substring<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        end: usize,
    ) -> PyResult<Bound<'py, PyString>> {
        let start = ffi::Py_ssize_t::try_from(start)?;
        let end = ffi::Py_ssize_t::try_from(end)?;
        // SAFETY: the object is a live `str`; `PyUnicode_Substring` returns a new reference or
        // null with an exception set (clamping the bounds), which `from_owned_ptr_or_err`
        // turns into an error.
        unsafe {
            let object = ffi::PyUnicode_Substring(self.object.as_ptr(), start, end);
            Ok(Bound::from_owned_ptr_or_err(py, object)?.cast_into_unchecked())
        }
    }

    /// The string whose raw text (between the quotes, escapes included) is code points
    /// `start..end`, with its escapes decoded; the scanner has already checked them.
    pub(crate) fn unescaped<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        end: usize,
        out: &mut Vec<u32>,
    ) -> PyResult<Bound<'py, PyString>> {
        out.clear();
        match self.units {
            Units::One(units) => unescape(&units[start..end], out),
            Units::Two(units) => unescape(&units[start..end], out),
            Units::Four(units) => unescape(&units[start..end], out),
        }
        let len = ffi::Py_ssize_t::try_from(out.len())?;
        // SAFETY: `out` holds `len` UCS4 units; `PyUnicode_FromKindAndData` copies them into a
        // new `str` of the narrowest kind (lone surrogates are kept, as json.loads keeps them)
        // and returns a new reference or null with an exception set.
        unsafe {
            let object = ffi::PyUnicode_FromKindAndData(
                ffi::PyUnicode_4BYTE_KIND as _,
                out.as_ptr().cast(),
                len,
            );
            Ok(Bound::from_owned_ptr_or_err(py, object)?.cast_into_unchecked())
        }
    }
}

/// Fills `out` with one byte per unit (ASCII kept, anything else `0xFF`); true when some unit
/// is a surrogate. Blocks of plain lanes, so the compiler vectorizes both.
fn narrow_into<T: Copy + Into<u32>>(units: &[T], out: &mut Vec<u8>) -> bool {
    out.clear();
    out.resize(units.len(), 0);
    let mut surrogate = 0u8;
    for (dst, src) in out.chunks_mut(64).zip(units.chunks(64)) {
        for (d, &u) in dst.iter_mut().zip(src) {
            let u: u32 = u.into();
            *d = if u < 0x80 { u as u8 } else { 0xFF };
            surrogate |= u8::from(u & !0x7FF == 0xD800);
        }
    }
    surrogate != 0
}

fn hex4<T: Copy + Into<u32>>(units: &[T]) -> u32 {
    units.iter().take(4).fold(0, |acc, &u| {
        let u: u32 = u.into();
        let digit = match u {
            0x30..=0x39 => u - 0x30,
            0x41..=0x46 => u - 0x41 + 10,
            0x61..=0x66 => u - 0x61 + 10,
            _ => 0,
        };
        acc << 4 | digit
    })
}

/// Decodes the escapes of a string's raw text (already checked by the scanner) into code
/// points, with the scanner's rules: a high surrogate escape followed by a low one is one code
/// point, any other surrogate escape is kept alone.
fn unescape<T: Copy + Into<u32>>(raw: &[T], out: &mut Vec<u32>) {
    let at = |i: usize| raw.get(i).map_or(0, |&u| u.into());
    let mut i = 0;
    while i < raw.len() {
        let u = at(i);
        if u != u32::from(b'\\') {
            out.push(u);
            i += 1;
            continue;
        }
        let simple = match at(i + 1) {
            0x22 => 0x22,
            0x5C => 0x5C,
            0x2F => 0x2F,
            0x62 => 0x08,
            0x66 => 0x0C,
            0x6E => 0x0A,
            0x72 => 0x0D,
            0x74 => 0x09,
            _ => u32::MAX, // `u`: the scanner let nothing else through
        };
        if simple != u32::MAX {
            out.push(simple);
            i += 2;
            continue;
        }
        let unit = hex4(raw.get(i + 2..).unwrap_or_default());
        i += 6;
        let mut code = unit;
        if (0xD800..0xDC00).contains(&unit) && at(i) == 0x5C && at(i + 1) == 0x75 {
            let low = hex4(raw.get(i + 2..).unwrap_or_default());
            if (0xDC00..0xE000).contains(&low) {
                code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                i += 6;
            }
        }
        out.push(code);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_copy_keeps_ascii_and_flags_surrogates() {
        let mut out = Vec::new();
        let text: Vec<u16> = "a\u{e9}\u{65e5}\"".encode_utf16().collect();
        assert!(!narrow_into(&text, &mut out));
        assert_eq!(out, b"a\xff\xff\"");
        assert!(narrow_into(&[0x61u16, 0xD800], &mut out));
        assert!(narrow_into(&[0xDFFFu32], &mut out));
        assert!(!narrow_into(&[0xE000u32, 0x1F600, 0x4D800], &mut out));
    }

    #[test]
    fn escapes_decode_as_the_scanner_decodes_them() {
        let cases: [(&str, &[u32]); 5] = [
            (
                r#"a\"b\\c\/d\b\f\n\r\t"#,
                &[0x61, 0x22, 0x62, 0x5C, 0x63, 0x2F, 0x64, 8, 12, 10, 13, 9],
            ),
            (r"\u00e9\u65E5", &[0xE9, 0x65E5]),
            (r"\ud83d\ude00x", &[0x1F600, 0x78]),
            (r"\ud800\u0041", &[0xD800, 0x41]),
            (r"\udc00\ud83d\ud83d\ude00", &[0xDC00, 0xD83D, 0x1F600]),
        ];
        for (raw, expected) in cases {
            let units: Vec<u32> = raw.chars().map(u32::from).collect();
            let mut out = Vec::new();
            unescape(&units, &mut out);
            assert_eq!(out, expected, "{raw}");
        }
    }
}

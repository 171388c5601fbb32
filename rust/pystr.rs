//! `str` objects straight from UTF-8 bytes: CPython's compact layout (1, 2 or 4 bytes a code
//! point) is sized and filled in here, instead of going through CPython's UTF-8 decoder, which
//! checks the bytes again and widens its buffer as it meets wider characters.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// A `str` from UTF-8 bytes; `ascii` must say whether they are all ASCII. Bytes that are not
/// UTF-8 give a wrong string, never unsafety: callers check the text before.
pub(crate) fn str_from_utf8<'py>(
    py: Python<'py>,
    bytes: &[u8],
    ascii: bool,
) -> PyResult<Bound<'py, PyString>> {
    let (chars, max) = if ascii {
        debug_assert!(bytes.is_ascii());
        (bytes.len(), 0)
    } else {
        // a code point starts at every byte that is not a continuation byte (0x80..=0xBF), and
        // the largest byte is the lead of the widest one; two simple passes the compiler
        // vectorizes
        let continuations: usize = bytes
            .chunks(255)
            .map(|block| {
                // byte-wide lanes cannot overflow on 255 bytes
                let n: u8 = block.iter().map(|&b| u8::from((b as i8) < -0x40)).sum();
                usize::from(n)
            })
            .sum();
        (
            bytes.len() - continuations,
            bytes.iter().copied().max().unwrap_or(0),
        )
    };
    let maxchar: u32 = match max {
        0..=0x7F => 0x7F,
        0x80..=0xC3 => 0xFF,
        0xC4..=0xEF => 0xFFFF,
        _ => 0x10_FFFF,
    };
    let size = ffi::Py_ssize_t::try_from(chars)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("string too long"))?;
    // SAFETY: `PyUnicode_New` returns a new reference or null with an exception set, which
    // `from_owned_ptr_or_err` turns into an error.
    let object = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyUnicode_New(size, maxchar))? };
    let ptr = object.as_ptr();
    // SAFETY: `ptr` is a fresh, compact str of `chars` code points of the kind `maxchar` asked
    // for, not yet shared with anyone; its data holds exactly `chars` units of that kind (plus
    // the terminator CPython already wrote), so each slice below covers only its own buffer.
    unsafe {
        let data = ffi::PyUnicode_DATA(ptr);
        let kind = ffi::PyUnicode_KIND(ptr);
        let units = chars.saturating_mul(kind as usize);
        if units >= crate::prefault::MIN_LEN {
            crate::prefault::populate(data.cast::<u8>(), units);
        }
        match kind {
            ffi::PyUnicode_1BYTE_KIND => {
                let out = std::slice::from_raw_parts_mut(data.cast::<u8>(), chars);
                if maxchar == 0x7F {
                    out.copy_from_slice(&bytes[..chars]);
                } else {
                    decode(bytes, out, |c| c.min(0xFF) as u8);
                }
            }
            ffi::PyUnicode_2BYTE_KIND => {
                let out = std::slice::from_raw_parts_mut(data.cast::<u16>(), chars);
                decode(bytes, out, |c| c.min(0xFFFF) as u16);
            }
            _ => {
                let out = std::slice::from_raw_parts_mut(data.cast::<u32>(), chars);
                decode(bytes, out, |c| c.min(0x10_FFFF));
            }
        }
        Ok(object.cast_into_unchecked())
    }
}

/// Decodes UTF-8 `bytes` into code units, one per slot of `out`. Made for valid UTF-8 (what
/// the callers pass); other bytes give wrong characters, and slots left over get U+0000.
#[inline]
fn decode<T>(bytes: &[u8], out: &mut [T], unit: impl Fn(u32) -> T) {
    let mut i = 0;
    let mut done = 0;
    // while four bytes are left, a code point's bytes are read without a bounds check each
    for slot in out.iter_mut() {
        let Some(&[lead, b1, b2, b3]) = bytes.get(i..).and_then(|rest| rest.first_chunk::<4>())
        else {
            break;
        };
        let [b1, b2, b3] = [b1, b2, b3].map(|b| u32::from(b & 0x3F));
        let code = if lead < 0x80 {
            i += 1;
            u32::from(lead)
        } else if lead < 0xE0 {
            i += 2;
            u32::from(lead & 0x1F) << 6 | b1
        } else if lead < 0xF0 {
            i += 3;
            u32::from(lead & 0x0F) << 12 | b1 << 6 | b2
        } else {
            i += 4;
            u32::from(lead & 0x07) << 18 | b1 << 12 | b2 << 6 | b3
        };
        *slot = unit(code);
        done += 1;
    }
    let at = |k: usize| u32::from(bytes.get(k).copied().unwrap_or(0x80) & 0x3F);
    for slot in out.iter_mut().skip(done) {
        let Some(&lead) = bytes.get(i) else {
            *slot = unit(0);
            continue;
        };
        let code = if lead < 0x80 {
            i += 1;
            u32::from(lead)
        } else if lead < 0xE0 {
            let code = u32::from(lead & 0x1F) << 6 | at(i + 1);
            i += 2;
            code
        } else if lead < 0xF0 {
            let code = u32::from(lead & 0x0F) << 12 | at(i + 1) << 6 | at(i + 2);
            i += 3;
            code
        } else {
            let code = u32::from(lead & 0x07) << 18 | at(i + 1) << 12 | at(i + 2) << 6 | at(i + 3);
            i += 4;
            code
        };
        *slot = unit(code);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_width_round_trips_in_canonical_form() {
        Python::initialize();
        Python::attach(|py| {
            for text in [
                "",
                "ascii",
                "caf\u{e9}",
                "\u{ff}",
                "\u{100}",
                "日本語",
                "\u{ffff}",
                "a😀b",
                "进度 ✓ 🚀 x",
            ] {
                let ours = str_from_utf8(py, text.as_bytes(), text.is_ascii()).unwrap();
                let theirs = PyString::new(py, text);
                // the same kind and size as CPython's own string for the same text (measured
                // before `to_str` caches a UTF-8 copy)
                let size = |s: &Bound<'_, PyString>| {
                    s.call_method0("__sizeof__")
                        .unwrap()
                        .extract::<usize>()
                        .unwrap()
                };
                assert_eq!(size(&ours), size(&theirs), "{text}");
                assert_eq!(ours.to_str().unwrap(), text);
            }
        });
    }
}

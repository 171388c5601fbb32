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
        (bytes.len(), 0)
    } else {
        // a code point starts at every byte that is not a continuation byte (0x80..=0xBF), and
        // the largest byte is the lead of the widest one
        bytes.iter().fold((0usize, 0u8), |(n, max), &b| {
            (n + usize::from((b as i8) >= -0x40), max.max(b))
        })
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
        match ffi::PyUnicode_KIND(ptr) {
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

/// Decodes UTF-8 `bytes` into code units, one per lead byte (as many as `out` holds).
#[inline]
fn decode<T>(bytes: &[u8], out: &mut [T], unit: impl Fn(u32) -> T) {
    let mut i = 0;
    for slot in out.iter_mut() {
        // stray continuation bytes (only in text that is not UTF-8) start no code point
        while let Some(0x80..=0xBF) = bytes.get(i) {
            i += 1;
        }
        let Some(&lead) = bytes.get(i) else {
            return;
        };
        i += 1;
        let (mut code, extra) = match lead {
            0..=0x7F => (u32::from(lead), 0),
            0xC0..=0xDF => (u32::from(lead & 0x1F), 1),
            0xE0..=0xEF => (u32::from(lead & 0x0F), 2),
            _ => (u32::from(lead & 0x07), 3),
        };
        for _ in 0..extra {
            match bytes.get(i) {
                Some(&c) if c & 0xC0 == 0x80 => {
                    code = code << 6 | u32::from(c & 0x3F);
                    i += 1;
                }
                _ => break,
            }
        }
        *slot = unit(code);
    }
}
